import { tokenizeForSearch } from '../ticket-index/tokenize-for-search.js';
import type { KbTicketBlock } from './kb-ticket-block.js';

/** How many tickets a results answer cites at most. */
export const MAX_CITED_TICKETS = 3;

/**
 * Orders the retrieved tickets for citing: the retrieval score blended with how many of the
 * inquiry's terms the ticket contains — those of all user turns and, again, those of the latest
 * one, so a chosen clarification option steers the answer. Keeps the best 1–3: those within
 * 75 % of the best.
 */
export function rankTickets(
  tickets: readonly KbTicketBlock[],
  inquiries: readonly string[],
): KbTicketBlock[] {
  const allTerms = new Set(tokenizeForSearch(inquiries.join('\n')));
  const latestTerms = new Set(tokenizeForSearch(inquiries.at(-1) ?? ''));
  const ranked = tickets
    .map((ticket, position) => {
      const ticketTerms = new Set(tokenizeForSearch(`${ticket.subject}\n${ticket.text}`));
      const overlap = (terms: Set<string>) =>
        terms.size === 0
          ? 0
          : [...terms].filter((term) => ticketTerms.has(term)).length / terms.size;
      const rank =
        0.5 * (ticket.score ?? 0) + 0.25 * overlap(allTerms) + 0.25 * overlap(latestTerms);
      return { ticket, position, rank };
    })
    .sort((a, b) => b.rank - a.rank || a.position - b.position);
  const best = ranked[0]?.rank ?? 0;
  return ranked
    .filter((entry, index) => index === 0 || entry.rank >= best * 0.75)
    .slice(0, MAX_CITED_TICKETS)
    .map((entry) => entry.ticket);
}
