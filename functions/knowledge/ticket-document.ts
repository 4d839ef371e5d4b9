import { createHash } from 'node:crypto';
import { detectLanguage } from '../chat/inquiry-rules.js';
import type { Owner } from '../chat/ports.js';
import type { PublishKnowledgeRequest } from '../contract/knowledge.js';

/**
 * A published ticket as Knowledge Base documents: the Markdown document and its
 * `.metadata.json` sidecar, in the format of `data/tickets` (same headings, same list of facts,
 * same metadata keys), so retrieval, the prompt's ticket blocks and the local index treat a
 * captured ticket exactly like an imported one. The source of the ticket (conversation, inquiry,
 * author, date) travels in extra metadata keys that retrieval ignores.
 */

/** Where a published ticket came from. */
export interface TicketSource {
  readonly conversationId: string;
  readonly inquiryId: string;
  readonly author: Owner;
  readonly publishedAt: Date;
}

export interface TicketDocumentFiles {
  /** `<issueId>.md`. */
  readonly documentName: string;
  readonly document: string;
  /** `<issueId>.md.metadata.json`: Bedrock pairs it with the document by this name. */
  readonly sidecarName: string;
  readonly sidecar: string;
}

type Draft = Pick<
  PublishKnowledgeRequest,
  'subject' | 'category' | 'inquiry' | 'resolution' | 'restricted'
>;

const LABELS = {
  ja: {
    number: 'チケット番号',
    category: 'カテゴリ',
    status: 'ステータス',
    resolved: '解決済み',
    opened: '起票日',
    inquiry: '問い合わせ内容',
    resolution: '対応内容',
    notes: '備考',
    capturedFrom: (date: string) =>
      `${date} に解決した問い合わせからナレッジとして登録されました。`,
  },
  en: {
    number: 'Ticket',
    category: 'Category',
    status: 'Status',
    resolved: 'Resolved',
    opened: 'Opened',
    inquiry: 'Inquiry',
    resolution: 'Resolution',
    notes: 'Notes',
    capturedFrom: (date: string) => `Captured as knowledge from an inquiry solved on ${date}.`,
  },
} as const;

/**
 * Renders a draft as ticket documents. The language of the headings follows the draft's text
 * (Japanese if it has any kana or kanji), as the seed tickets' do.
 */
export function renderTicketDocuments(
  issueId: string,
  draft: Draft,
  source: TicketSource,
): TicketDocumentFiles {
  const language = detectLanguage(`${draft.subject}\n${draft.inquiry}`);
  const labels = LABELS[language];
  const date = source.publishedAt.toISOString().slice(0, 10);
  const steps = draft.resolution.map((step, index) => `${index + 1}. ${indentContinuation(step)}`);
  const document = [
    `# ${draft.subject}`,
    '',
    `- ${labels.number}: ${issueId}`,
    `- ${labels.category}: ${draft.category}`,
    `- ${labels.status}: ${labels.resolved}`,
    `- ${labels.opened}: ${date}`,
    '',
    `## ${labels.inquiry}`,
    '',
    draft.inquiry,
    '',
    `## ${labels.resolution}`,
    '',
    ...steps,
    '',
    `## ${labels.notes}`,
    '',
    labels.capturedFrom(date),
    '',
  ].join('\n');
  const sidecar = {
    metadataAttributes: {
      issue_id: issueId,
      subject: draft.subject,
      category: draft.category,
      status: 'resolved',
      created_at: date,
      restricted: draft.restricted,
      source: 'knowledge-capture',
      source_conversation_id: source.conversationId,
      source_inquiry_id: source.inquiryId,
      author_hash: authorHash(source.author),
      published_at: source.publishedAt.toISOString(),
    },
  };
  return {
    documentName: `${issueId}.md`,
    document,
    sidecarName: `${issueId}.md.metadata.json`,
    sidecar: `${JSON.stringify(sidecar, null, 2)}\n`,
  };
}

/**
 * Who published, without naming them: anyone with the Knowledge Base can read the metadata,
 * so it carries a hash that matches the author's other tickets but not their user id.
 */
export function authorHash(owner: Owner): string {
  return createHash('sha256')
    .update(`${owner.tenantId}#${owner.userId}`)
    .digest('hex')
    .slice(0, 16);
}

/** A step with line breaks stays one list item: continuation lines are indented under it. */
function indentContinuation(step: string): string {
  return step
    .split(/\r?\n/)
    .map((line, index) => (index === 0 ? line : line.trim() === '' ? '' : `   ${line}`))
    .join('\n');
}
