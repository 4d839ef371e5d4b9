import { createHash } from 'node:crypto';
import type { Owner } from '../chat/ports.js';
import type { PublishKnowledgeRequest } from '../contract/knowledge.js';
import { detectLanguage } from '../contract/language.js';
import { issueIdKind } from '../contract/ticket-references.js';

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

/**
 * Where an imported ticket came from (`npm run import`): the ticket system and the record's
 * dates. Nothing here names a person; the document is deterministic in it, so an unchanged
 * record renders to the same bytes and the import's content hash skips it.
 */
export interface ImportedTicketSource {
  /** The ticket system (`servicenow`, `jira`, `zendesk`, `csv`, `jsonl`): the sidecar's `source`. */
  readonly system: string;
  /** How the notes name the system (`ServiceNow`). */
  readonly systemLabel: string;
  /** `YYYY-MM-DD` the record was opened (the document's opened date), when known. */
  readonly openedOn?: string;
  /** `YYYY-MM-DD` it was resolved, when known. */
  readonly resolvedOn?: string;
}

/** The object names of a ticket: Bedrock pairs the sidecar with the document by its name. */
export interface TicketDocumentNames {
  /** `<issueId>.md` (`#` written `_`). */
  readonly documentName: string;
  /** `<issueId>.md.metadata.json` (`#` written `_`). */
  readonly sidecarName: string;
}

export interface TicketDocumentFiles extends TicketDocumentNames {
  readonly document: string;
  readonly sidecar: string;
}

/**
 * The file (and S3 object) names of a ticket, from its canonical issue id (ADR 0020): the id
 * itself, which is letters, digits, `-` and `_` only, with Zendesk's `ZD#35436` written
 * `ZD_35436` (`#` starts a URL fragment; no other canonical id holds `_` without `-`, so names
 * never collide). Upper case throughout, so a case-insensitive file system keeps them apart too.
 *
 * @throws Error when `issueId` is not a canonical issue id (`canonicalIssueId`).
 * @example
 * ticketDocumentNames('INC0012345').documentName; // 'INC0012345.md'
 * ticketDocumentNames('ZD#35436').sidecarName; // 'ZD_35436.md.metadata.json'
 */
export function ticketDocumentNames(issueId: string): TicketDocumentNames {
  if (issueIdKind(issueId) === undefined) {
    throw new Error(
      `ticket number ${JSON.stringify(issueId)} is not in canonical form (canonicalIssueId)`,
    );
  }
  const stem = issueId.replace('#', '_');
  return { documentName: `${stem}.md`, sidecarName: `${stem}.md.metadata.json` };
}

/**
 * The canonical issue id a ticket document is named after: the inverse of
 * {@link ticketDocumentNames} on `documentName` (`ZD_35436.md` → `ZD#35436`, `INC0012345.md` →
 * `INC0012345`). Only a name that function would write maps back, so a sidecar
 * (`….md.metadata.json`), a non-ticket object (`README.md`, `notes.txt`) or a non-canonical stem
 * (`0123.md`, `inc0012345.md`) is `undefined`. A path or S3 key is read by its last segment.
 *
 * @example
 * issueIdOfDocumentName('tickets/published/ZD_35436.md'); // 'ZD#35436'
 * issueIdOfDocumentName('1001.md.metadata.json'); // undefined
 */
export function issueIdOfDocumentName(name: string): string | undefined {
  const baseName = name.slice(name.lastIndexOf('/') + 1);
  if (!baseName.endsWith('.md')) return undefined;
  const stem = baseName.slice(0, -'.md'.length);
  // A Jira key may hold `_` itself (`IT_OPS-12`); only Zendesk's `#` is written `_`.
  const zendesk = stem.replace('_', '#');
  const issueId =
    issueIdKind(stem) !== undefined
      ? stem
      : issueIdKind(zendesk) === 'zendesk'
        ? zendesk
        : undefined;
  // Exactly the name the forward mapping writes, or none: the two stay each other's inverse.
  return issueId !== undefined && ticketDocumentNames(issueId).documentName === baseName
    ? issueId
    : undefined;
}

// An imported ticket's category is its source's (`network`, a Jira component), not one of the
// sample tickets' twenty: the document takes any category text.
type Draft = Pick<
  PublishKnowledgeRequest,
  'subject' | 'inquiry' | 'resolution' | 'restricted' | 'desk'
> & {
  readonly category: string;
};

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
    importedFrom: (system: string, date?: string) =>
      `${system} から取り込んだチケットです${date ? `（解決日: ${date}）` : ''}。`,
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
    importedFrom: (system: string, date?: string) =>
      `Imported from ${system}${date ? `; resolved on ${date}` : ''}.`,
  },
} as const;

/**
 * Renders a draft as ticket documents. The language of the headings follows the draft's text
 * (Japanese if it has any kana or kanji), as the seed tickets' do.
 */
export function renderTicketDocuments(
  issueId: string,
  draft: Draft,
  source: TicketSource | ImportedTicketSource,
): TicketDocumentFiles {
  const language = detectLanguage(`${draft.subject}\n${draft.inquiry}`);
  const labels = LABELS[language];
  const imported = 'system' in source;
  const date = imported
    ? (source.openedOn ?? source.resolvedOn)
    : source.publishedAt.toISOString().slice(0, 10);
  const steps = draft.resolution.flatMap((step, index) => inertListItem(`${index + 1}. `, step));
  const document = [
    `# ${draft.subject}`,
    '',
    `- ${labels.number}: ${issueId}`,
    `- ${labels.category}: ${draft.category}`,
    `- ${labels.status}: ${labels.resolved}`,
    ...(date ? [`- ${labels.opened}: ${date}`] : []),
    '',
    `## ${labels.inquiry}`,
    '',
    ...inertLines(draft.inquiry),
    '',
    `## ${labels.resolution}`,
    '',
    ...steps,
    '',
    `## ${labels.notes}`,
    '',
    imported
      ? labels.importedFrom(source.systemLabel, source.resolvedOn)
      : labels.capturedFrom(date ?? ''),
    '',
  ].join('\n');
  const common = {
    issue_id: issueId,
    subject: draft.subject,
    category: draft.category,
    status: 'resolved',
    ...(date ? { created_at: date } : {}),
    restricted: draft.restricted,
    // Always written, `all` included: a Knowledge Base filter cannot test a missing key (ADR 0029).
    desk: draft.desk,
  };
  const sidecar = {
    metadataAttributes: imported
      ? {
          ...common,
          source: source.system,
          ...(source.resolvedOn ? { resolved_at: source.resolvedOn } : {}),
        }
      : {
          ...common,
          source: 'knowledge-capture',
          source_conversation_id: source.conversationId,
          source_inquiry_id: source.inquiryId,
          author_hash: authorHash(source.author),
          published_at: source.publishedAt.toISOString(),
        },
  };
  return {
    ...ticketDocumentNames(issueId),
    document,
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

// ---------------------------------------------------------------------------------------------
// Staff text in the document (ADR 0015). The document is Markdown that retrieval, the prompt and
// people read; its sections are the headings this file writes. What staff wrote (the inquiry,
// each step) must not add one: "## 対応内容" in an inquiry or "## Notes" in a step would
// otherwise be a section of the stored ticket (a heading in CommonMark, indented 0–3 spaces, or
// set off by a "===" line). So staff text is written as it is only when each of its lines starts
// with a character no Markdown block can start with — a letter, a non-ASCII character that is not
// a space, or digits that are not a list number — which is what staff usually type; anything
// else goes into a fenced code block whose fence is longer than any run of its character in the
// text, so no line of the text can close it (CommonMark "Fenced code blocks"). Either way the
// text is content, never structure, whatever it holds.

// CommonMark's line endings: LF, CRLF and a lone CR (U+2028, U+2029 and NEL are not).
const LINE_ENDING = /\r\n|\r|\n/;
const PLAIN_LINE_START = /^(?:[A-Za-z]|[0-9]+(?![0-9.)])|(?![\p{White_Space}\p{C}])\P{ASCII})/u;
const BLANK = /^[ \t]*$/;

/** Whether every line of `lines` can only be paragraph text (blank lines allowed). */
const isPlain = (lines: readonly string[]) =>
  lines.every((line) => BLANK.test(line) || PLAIN_LINE_START.test(line));

/** The fence for `text`: tildes, one more than its longest run of tildes, at least three. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...(text.match(/~+/g) ?? []).map((run) => run.length));
  return '~'.repeat(Math.max(3, longest + 1));
}

/** Top-level staff text (the inquiry) as document lines. */
function inertLines(text: string): string[] {
  const lines = text.split(LINE_ENDING);
  if (isPlain(lines)) return lines.map((line) => (BLANK.test(line) ? '' : line));
  const fence = fenceFor(text);
  return [fence, ...lines, fence];
}

/**
 * One step as a list item that stays one item: every continuation line is indented to the
 * item's content (the marker's width: 3 for "1. ", 4 for "10. "), so no line of the step ends
 * the item or starts a block of its own.
 */
function inertListItem(marker: string, step: string): string[] {
  const indent = ' '.repeat(marker.length);
  const lines = step.split(LINE_ENDING);
  const indented = (line: string) => (BLANK.test(line) ? '' : `${indent}${line}`);
  if (isPlain(lines)) {
    const [first = '', ...rest] = lines;
    return [`${marker}${first}`, ...rest.map(indented)];
  }
  const fence = fenceFor(step);
  return [`${marker}${fence}`, ...lines.map(indented), `${indent}${fence}`];
}
