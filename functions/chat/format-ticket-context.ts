import type { Language } from './detect-language.js';
import { promptLabels } from './prompt-labels.js';
import type { RetrievedTicket } from './retriever.js';

/**
 * The fixed words of a ticket block: the heading prefix and the field keys. The local offline
 * responder (`local/bedrock/offline-responder/read-offline-prompt.ts`) parses blocks by them.
 */
export const TICKET_BLOCK_LABELS = {
  heading: '### Ticket',
  issueId: 'issue_id',
  category: 'category',
  score: 'score',
} as const;

/** What one ticket block shows; `score` is written when known (a retrieved ticket has one). */
export type TicketBlock = Pick<RetrievedTicket, 'issueId' | 'subject' | 'category' | 'text'> &
  Partial<Pick<RetrievedTicket, 'score'>>;

/**
 * The KB context section. Each ticket is one block the model (and the local offline responder,
 * which parses exactly this format) can read:
 *
 * ```
 * ### Ticket 1234: <subject>
 * issue_id: 1234
 * category: Salesforce
 * score: 0.83
 * <chunk text>
 * ```
 */
export function formatTicketContext(
  tickets: readonly RetrievedTicket[],
  language: Language,
): string {
  const labels = promptLabels[language];
  if (tickets.length === 0) return `${labels.knowledgeBase}\n${labels.noTickets}`;
  const blocks = tickets.map((ticket) =>
    formatTicketBlock({ ...ticket, text: demoteHeadings(ticket.text.trim()) }),
  );
  return [labels.knowledgeBase, ...blocks].join('\n\n');
}

/**
 * One ticket block: heading, field lines, then the text as given (`formatTicketContext` demotes
 * the text's headings first).
 * @example formatTicketBlock({ issueId: '1234', subject: 'VPN', category: 'VPN', score: 0.83, text: '…' })
 */
export function formatTicketBlock(ticket: TicketBlock): string {
  return [
    `${TICKET_BLOCK_LABELS.heading} ${ticket.issueId}: ${ticket.subject.replace(/\s+/g, ' ')}`,
    `${TICKET_BLOCK_LABELS.issueId}: ${ticket.issueId}`,
    ...(ticket.category ? [`${TICKET_BLOCK_LABELS.category}: ${ticket.category}`] : []),
    ...(ticket.score === undefined
      ? []
      : [`${TICKET_BLOCK_LABELS.score}: ${ticket.score.toFixed(2)}`]),
    ticket.text.trim(),
  ].join('\n');
}

/**
 * Ticket documents are markdown with their own `#`/`##` headings (an English ticket has
 * `## Inquiry`, the very heading of the question section). Inside the context they become
 * level-4 headings, so the prompt's own sections stay unambiguous.
 */
function demoteHeadings(text: string): string {
  return text.replace(/^#{1,3}(?=\s)/gm, '####');
}
