/**
 * The contract between the chat function's prompt assembly
 * (`functions/chat/format-ticket-context.ts`) and the offline responder: how one retrieved
 * ticket is rendered inside the Knowledge Base section of the last user message.
 *
 * ```text
 * ### Ticket 1234: SalesforceにSSOでログインできない
 * issue_id: 1234
 * category: Salesforce
 * score: 0.83
 * # SalesforceにSSOでログインできない …the chunk text as retrieved…
 * ```
 *
 * - Each block starts with the line `### Ticket <issue_id>: <subject>` (subject on one line).
 * - Field lines follow directly, one `key: value` each, keys from `issue_id`, `subject`,
 *   `category`, `status`, `created_at`, `score`; `issue_id` is required, the others optional.
 * - Then the chunk text, optionally after one blank line. The text may hold its own markdown
 *   headings (`## Inquiry` in the English tickets); the section splitter copes with that.
 * - Blocks are separated by a blank line. With no tickets, the section holds a note and no block.
 */
export interface KbTicketBlock {
  readonly issueId: string;
  readonly subject: string;
  readonly category?: string;
  readonly status?: string;
  readonly createdAt?: string;
  readonly score?: number;
  readonly text: string;
}

const HEADING = /^### Ticket ([^:\s]+):?[ \t]*(.*)$/;
const FIELD = /^(issue_id|subject|category|status|created_at|score):[ \t]*(.*)$/;
const BLOCK_START = /^(?=### Ticket )/m;

const oneLine = (value: string) => value.replace(/\s+/g, ' ').trim();

/**
 * Renders one retrieved ticket in the format above — the same lines
 * `functions/chat/format-ticket-context.ts` writes (heading, `issue_id`, `category` if known,
 * `score` with two decimals, text).
 * @example formatKbTicketBlock({ issueId: '1234', subject: 'VPN', category: 'VPN', score: 0.83, text: '…' })
 */
export function formatKbTicketBlock(ticket: KbTicketBlock): string {
  return [
    `### Ticket ${oneLine(ticket.issueId)}: ${oneLine(ticket.subject)}`,
    `issue_id: ${oneLine(ticket.issueId)}`,
    ...(ticket.category ? [`category: ${oneLine(ticket.category)}`] : []),
    ...(ticket.status ? [`status: ${oneLine(ticket.status)}`] : []),
    ...(ticket.createdAt ? [`created_at: ${oneLine(ticket.createdAt)}`] : []),
    ...(ticket.score === undefined ? [] : [`score: ${ticket.score.toFixed(2)}`]),
    ticket.text.trim(),
  ].join('\n');
}

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
      const score = Number.parseFloat(fields.get('score') ?? '');
      return [
        {
          issueId: fields.get('issue_id') || (heading[1] as string),
          subject: fields.get('subject') || (heading[2] as string).trim(),
          category: fields.get('category') || undefined,
          status: fields.get('status') || undefined,
          createdAt: fields.get('created_at') || undefined,
          score: Number.isFinite(score) ? score : undefined,
          text: rest.slice(index).join('\n').trim(),
        },
      ];
    });
}
