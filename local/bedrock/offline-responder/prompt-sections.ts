/**
 * The section headings the chat function puts into the last user message
 * (`functions/chat/prompt-labels.ts` renders them), in Japanese and English, each on its own line.
 * The offline responder finds the request's parts through them.
 */
export const PROMPT_SECTION_HEADINGS = {
  knowledgeBase: {
    ja: '## 過去チケットデータ（Knowledge Base検索結果）',
    en: '## Past tickets (Knowledge Base results)',
  },
  archive: {
    ja: '## 過去の問い合わせ回答（参照用）',
    en: '## Earlier inquiries in this conversation (reference only)',
  },
  inquiry: { ja: '## 問い合わせ', en: '## Inquiry' },
} as const;

/** The last user message cut into its parts; `preamble` is text before the first section. */
export interface PromptSections {
  readonly preamble: string;
  readonly knowledgeBase?: string;
  readonly archive?: string;
  readonly inquiry?: string;
}

// Compared after NFKC (full-width brackets become ASCII) and lower-casing; the Knowledge Base
// and archive headings by prefix, so a reworded suffix does not lose a section.
const normalize = (line: string) => line.slice(3).normalize('NFKC').toLowerCase().trim();
const isKnowledgeBase = (heading: string) =>
  heading.startsWith('過去チケットデータ') || heading.startsWith('past tickets');
const isArchive = (heading: string) =>
  /^(過去の問い合わせ|earlier inquiries|past inquiries)/.test(heading);
const isInquiry = (heading: string) => heading === '問い合わせ' || heading === 'inquiry';

/**
 * Splits a user message into preamble, Knowledge Base, archive and inquiry sections.
 *
 * Ticket texts carry their own markdown headings — the English sample tickets have `## Inquiry`
 * — so headings are located structurally, not line by line: the inquiry starts at the **last**
 * inquiry heading, the archive at the last archive heading before it, and the Knowledge Base at
 * the first Knowledge Base heading; each section runs to the next of these.
 */
export function splitPromptSections(text: string): PromptSections {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const headings = lines.map((line) => (line.startsWith('## ') ? normalize(line) : undefined));
  const lastIndex = (test: (heading: string) => boolean, before = lines.length) =>
    headings.findLastIndex(
      (heading, index) => index < before && heading !== undefined && test(heading),
    );

  const inquiry = lastIndex(isInquiry);
  const archive = lastIndex(isArchive, inquiry === -1 ? lines.length : inquiry);
  const knowledgeBase = headings.findIndex(
    (heading, index) =>
      heading !== undefined &&
      isKnowledgeBase(heading) &&
      (archive === -1 || index < archive) &&
      (inquiry === -1 || index < inquiry),
  );
  const starts = [knowledgeBase, archive, inquiry].filter((index) => index !== -1);
  const body = (start: number) => {
    if (start === -1) return undefined;
    const end = Math.min(...starts.filter((other) => other > start), lines.length);
    return lines
      .slice(start + 1, end)
      .join('\n')
      .trim();
  };
  return {
    preamble: lines
      .slice(0, Math.min(...starts, lines.length))
      .join('\n')
      .trim(),
    knowledgeBase: body(knowledgeBase),
    archive: body(archive),
    inquiry: body(inquiry),
  };
}
