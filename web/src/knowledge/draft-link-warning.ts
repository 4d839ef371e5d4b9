import { findUnverifiedTicketLinks } from '../../../functions/contract/knowledge.js';
import type { TicketDraftFields } from './ticket-draft-reducer.js';

/**
 * The links the "Save as knowledge" form warns about before publishing: those in the subject,
 * the inquiry and the steps whose domain is not on the deployment's allow-list (which
 * `GET /api/me` gives editors). The same function as the server's `unverifiedLinks` in the 201,
 * so the warning lists exactly what the server will. A warning, not a refusal: answers citing
 * the ticket keep such links away from requesters anyway (docs/adr/0013-answer-links.md).
 *
 * @param allowedLinkDomains `undefined` when the server sent no list (older than the check):
 *   nothing can be judged, so nothing is listed — the 201 still says what the server found.
 */
export function findDraftLinkWarnings(
  fields: TicketDraftFields,
  allowedLinkDomains: readonly string[] | undefined,
): string[] {
  if (allowedLinkDomains === undefined) return [];
  return findUnverifiedTicketLinks(fields, allowedLinkDomains);
}
