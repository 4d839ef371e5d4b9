import type { Language } from './detect-language.js';
import { promptLabels } from './prompt-labels.js';
import type { RetrievedTicket } from './retriever.js';

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
    [
      `### Ticket ${ticket.issueId}: ${ticket.subject.replace(/\s+/g, ' ')}`,
      `issue_id: ${ticket.issueId}`,
      ...(ticket.category ? [`category: ${ticket.category}`] : []),
      `score: ${ticket.score.toFixed(2)}`,
      demoteHeadings(ticket.text.trim()),
    ].join('\n'),
  );
  return [labels.knowledgeBase, ...blocks].join('\n\n');
}

/**
 * Ticket documents are markdown with their own `#`/`##` headings (an English ticket has
 * `## Inquiry`, the very heading of the question section). Inside the context they become
 * level-4 headings, so the prompt's own sections stay unambiguous.
 */
function demoteHeadings(text: string): string {
  return text.replace(/^#{1,3}(?=\s)/gm, '####');
}
