import type { TicketResult } from './answer-schema.js';
import { normalizeIssueId } from './parse-ticket-references.js';

/**
 * Grounding: a cited ticket survives only if its issue id is one of the tickets retrieved or
 * fetched for this inquiry (restricted ones already removed). The model cannot invent a source,
 * and a ticket that appears only in history can never become one.
 */
export function groundTicket(
  ticket: TicketResult,
  allowedIssueIds: ReadonlySet<string>,
): TicketResult | undefined {
  const issueId = normalizeIssueId(ticket.issue_id);
  if (issueId === undefined || !allowedIssueIds.has(issueId)) return undefined;
  return { ...ticket, issue_id: issueId };
}
