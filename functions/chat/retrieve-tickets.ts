import type { RetrievedTicket, Retriever } from './retriever.js';

/** Bedrock's Retrieve accepts at most 1,000 characters of query text. */
export const MAX_QUERY_LENGTH = 1000;

export function toRetrievalQuery(inquiryText: string): string {
  return Array.from(inquiryText.trim()).slice(0, MAX_QUERY_LENGTH).join('');
}

/**
 * Similar tickets for the inquiry text, restricted ones removed a second time here whatever the
 * retriever's filter did, and merged per ticket (a long ticket can come back as several chunks).
 */
export async function retrieveTickets(
  retriever: Retriever,
  inquiryText: string,
  limit: number,
  signal?: AbortSignal,
): Promise<RetrievedTicket[]> {
  return mergeChunks(await retriever.search(toRetrievalQuery(inquiryText), { limit, signal }));
}

export async function fetchReferencedTickets(
  retriever: Retriever,
  issueIds: readonly string[],
  signal?: AbortSignal,
): Promise<RetrievedTicket[]> {
  if (issueIds.length === 0) return [];
  const limit = Math.min(100, issueIds.length * 4);
  return mergeChunks(await retriever.fetchByIssueIds(issueIds, { limit, signal }));
}

/** Drops restricted chunks and joins chunks of one ticket, best score first. */
export function mergeChunks(chunks: readonly RetrievedTicket[]): RetrievedTicket[] {
  const byIssue = new Map<string, RetrievedTicket>();
  for (const chunk of chunks) {
    if (chunk.restricted) continue;
    const existing = byIssue.get(chunk.issueId);
    if (!existing) byIssue.set(chunk.issueId, chunk);
    else if (!existing.text.includes(chunk.text)) {
      byIssue.set(chunk.issueId, {
        ...existing,
        score: Math.max(existing.score, chunk.score),
        text: `${existing.text}\n${chunk.text}`,
      });
    }
  }
  return [...byIssue.values()].sort((a, b) => b.score - a.score);
}
