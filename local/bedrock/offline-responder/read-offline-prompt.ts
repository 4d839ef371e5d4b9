import { promptLabels, TICKET_BLOCK_LABELS } from '../../../functions/chat/prompt-text.js';
import type { ConverseWireRequest } from '../recorded-requests.js';

/** What the offline responder knows: only what the ConverseStream request carries. */
export interface OfflinePrompt {
  /** The forced tool (`toolChoice.tool`), else the only/first tool. */
  readonly toolName: string;
  readonly inputSchema: unknown;
  readonly maxTokens?: number;
  /** The user's text in each user message of the working buffer, oldest first. */
  readonly inquiries: readonly string[];
  /** The last user message's whole text (the draft tool reads its transcript sections). */
  readonly lastUserText: string;
  /** Retrieved tickets from the last user message, one per issue id (chunks merged). */
  readonly tickets: readonly KbTicketBlock[];
  readonly archive?: string;
  /**
   * The working buffer already holds an assistant turn. A `results` answer closes an inquiry,
   * so an assistant turn in the buffer can only be a clarification: answer with results now.
   */
  readonly answeredClarification: boolean;
}

/** The request cannot be answered offline (e.g. no tool to call); sent as a ValidationException. */
export class OfflineRequestError extends Error {
  override readonly name = 'OfflineRequestError';
}

/**
 * Reads a ConverseStream request body the way the offline responder needs it: the tool to call,
 * and from the user messages the inquiry sections, the Knowledge Base tickets and the archive.
 * A user message without a `## 問い合わせ` / `## Inquiry` section counts as inquiry text as a whole
 * (minus any Knowledge Base and archive sections).
 * @throws OfflineRequestError without a tool or without a user message
 */
export function readOfflinePrompt(body: ConverseWireRequest): OfflinePrompt {
  const tools = body.toolConfig?.tools ?? [];
  const forced = body.toolConfig?.toolChoice?.tool?.name;
  const tool = tools.find((candidate) => candidate.toolSpec?.name === forced) ?? tools[0];
  const toolName = tool?.toolSpec?.name;
  if (toolName === undefined) {
    throw new OfflineRequestError(
      'The offline responder answers through a tool: send toolConfig with the forced tool.',
    );
  }
  const messages = body.messages ?? [];
  const userTexts = messages
    .filter((message) => message.role === 'user')
    .map((message) => messageText(message));
  const userSections = userTexts.map((text) => splitPromptSections(text));
  const last = userSections.at(-1);
  if (last === undefined) throw new OfflineRequestError('There is no user message to answer.');

  return {
    toolName,
    inputSchema: tool?.toolSpec?.inputSchema?.json,
    maxTokens: body.inferenceConfig?.maxTokens,
    inquiries: userSections
      .map((sections) => sections.inquiry ?? sections.preamble)
      .filter((text) => text !== ''),
    lastUserText: userTexts.at(-1) ?? '',
    tickets: mergeChunks(parseKbTicketBlocks(last.knowledgeBase ?? '')),
    archive: last.archive,
    answeredClarification: messages.some((message) => message.role === 'assistant'),
  };
}

const messageText = (message: NonNullable<ConverseWireRequest['messages']>[number]) =>
  (message.content ?? [])
    // A guarded block is text the model reads like any other.
    .map((block) => block.text ?? block.guardContent?.text?.text ?? '')
    .join('\n')
    .trim();

const mergeChunks = (tickets: readonly KbTicketBlock[]): KbTicketBlock[] => {
  const byId = new Map<string, KbTicketBlock>();
  for (const ticket of tickets) {
    const seen = byId.get(ticket.issueId);
    byId.set(
      ticket.issueId,
      seen === undefined
        ? ticket
        : {
            ...seen,
            score: Math.max(seen.score ?? 0, ticket.score ?? 0),
            text: `${seen.text}\n\n${ticket.text}`,
          },
    );
  }
  return [...byId.values()];
};

// ---------------------------------------------------------------------------------------------
// Sections: the chat core injects them into the last user message under the headings of
// `functions/chat/prompt-text.ts` (`promptLabels`) (Japanese or English), each on its own line.

/** The last user message cut into its parts; `preamble` is text before the first section. */
export interface PromptSections {
  readonly preamble: string;
  readonly knowledgeBase?: string;
  readonly archive?: string;
  readonly inquiry?: string;
}

// Compared after NFKC (full-width brackets become ASCII) and lower-casing; the Knowledge Base
// and archive headings up to their parenthesis, so a reworded remark in brackets does not lose
// a section.
const normalize = (line: string) => line.slice(3).normalize('NFKC').toLowerCase().trim();
const beforeParenthesis = (heading: string) => heading.split('(')[0]?.trim() ?? heading;
const labelsOf = (section: 'knowledgeBase' | 'archive' | 'inquiry') =>
  Object.values(promptLabels).map((labels) => normalize(labels[section]));
const KNOWLEDGE_BASE_STEMS = labelsOf('knowledgeBase').map(beforeParenthesis);
const ARCHIVE_STEMS = labelsOf('archive').map(beforeParenthesis);
const INQUIRY_HEADINGS = labelsOf('inquiry');
const isKnowledgeBase = (heading: string) =>
  KNOWLEDGE_BASE_STEMS.some((stem) => heading.startsWith(stem));
const isArchive = (heading: string) => ARCHIVE_STEMS.some((stem) => heading.startsWith(stem));
const isInquiry = (heading: string) => INQUIRY_HEADINGS.includes(heading);

/**
 * Splits a user message into preamble, Knowledge Base, archive and inquiry sections.
 *
 * Ticket texts carry their own markdown headings — the English sample tickets have `## Inquiry`,
 * which the core demotes to `#### Inquiry`, but a hand-written prompt may not — so headings are
 * located structurally, not line by line: the inquiry starts at the **last** inquiry heading, the
 * archive at the last archive heading before it, and the Knowledge Base at the first Knowledge
 * Base heading; each section runs to the next of these.
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

// ---------------------------------------------------------------------------------------------
// Ticket blocks: the Knowledge Base section holds one block per retrieved ticket, as
// `formatTicketBlock` in `functions/chat/prompt-text.ts` writes it:
//
//   ### Ticket 1234: SalesforceにSSOでログインできない
//   issue_id: 1234
//   category: Salesforce
//   score: 0.83
//   …the chunk text as retrieved…
//
// Field lines follow the heading directly, one `key: value` each; then the text, optionally
// after one blank line. Blocks are separated by a blank line; with no tickets the section holds
// a note and no block.

/** One ticket block as the offline responder reads it. */
export interface KbTicketBlock {
  readonly issueId: string;
  readonly subject: string;
  readonly category?: string;
  readonly status?: string;
  readonly createdAt?: string;
  readonly score?: number;
  readonly text: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// Besides the fields the core writes, `subject`, `status` and `created_at` are read too, in any
// order, so a hand-written prompt (curl, tests) may carry them.
const FIELD_KEYS = [
  TICKET_BLOCK_LABELS.issueId,
  'subject',
  TICKET_BLOCK_LABELS.category,
  'status',
  'created_at',
  TICKET_BLOCK_LABELS.score,
];
const HEADING = new RegExp(
  `^${escapeRegExp(TICKET_BLOCK_LABELS.heading)} ([^:\\s]+):?[ \\t]*(.*)$`,
);
const FIELD = new RegExp(`^(${FIELD_KEYS.map(escapeRegExp).join('|')}):[ \\t]*(.*)$`);
const BLOCK_START = new RegExp(`^(?=${escapeRegExp(TICKET_BLOCK_LABELS.heading)} )`, 'm');

/** Parses the ticket blocks of a Knowledge Base section body; text outside blocks is ignored. */
export function parseKbTicketBlocks(section: string): KbTicketBlock[] {
  return section
    .replace(/\r\n/g, '\n')
    .split(BLOCK_START)
    .map((block) => block.split('\n'))
    .flatMap(([headingLine = '', ...rest]) => {
      const heading = HEADING.exec(headingLine.trim());
      if (heading === null) return [];
      const fields = new Map<string, string>();
      let index = 0;
      for (; index < rest.length; index += 1) {
        const field = FIELD.exec(rest[index] ?? '');
        if (field === null) break;
        fields.set(field[1] as string, (field[2] as string).trim());
      }
      const score = Number.parseFloat(fields.get(TICKET_BLOCK_LABELS.score) ?? '');
      return [
        {
          issueId: fields.get(TICKET_BLOCK_LABELS.issueId) || (heading[1] as string),
          subject: fields.get('subject') || (heading[2] as string).trim(),
          category: fields.get(TICKET_BLOCK_LABELS.category) || undefined,
          status: fields.get('status') || undefined,
          createdAt: fields.get('created_at') || undefined,
          score: Number.isFinite(score) ? score : undefined,
          text: rest.slice(index).join('\n').trim(),
        },
      ];
    });
}
