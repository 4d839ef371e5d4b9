import { tokenizeForSearch } from '../ticket-index/tokenize-for-search.js';
import type { KbTicketBlock } from './kb-ticket-block.js';

/** How many tickets a results answer cites at most. */
export const MAX_CITED_TICKETS = 3;

/**
 * Orders the retrieved tickets for citing: the retrieval score blended with how many of the
 * inquiry's terms (all user turns, so a chosen clarification option counts) the ticket contains.
 * Keeps the best 1–3: those within 75 % of the best.
 */
export function rankTickets(
  tickets: readonly KbTicketBlock[],
  inquiries: readonly string[],
): KbTicketBlock[] {
  const queryTerms = new Set(tokenizeForSearch(inquiries.join('\n')));
  const ranked = tickets
    .map((ticket, position) => {
      const ticketTerms = new Set(tokenizeForSearch(`${ticket.subject}\n${ticket.text}`));
      const shared = [...queryTerms].filter((term) => ticketTerms.has(term)).length;
      const overlap = queryTerms.size === 0 ? 0 : shared / queryTerms.size;
      return { ticket, position, rank: 0.6 * (ticket.score ?? 0) + 0.4 * overlap };
    })
    .sort((a, b) => b.rank - a.rank || a.position - b.position);
  const best = ranked[0]?.rank ?? 0;
  return ranked
    .filter((entry, index) => index === 0 || entry.rank >= best * 0.75)
    .slice(0, MAX_CITED_TICKETS)
    .map((entry) => entry.ticket);
}
