import {
  createKnowledgeBaseDocuments,
  type KnowledgeBaseDocumentsOptions,
} from '../../functions/adapters/bedrock/knowledge-base-documents.js';
import { ticketDocumentNames } from '../../functions/knowledge/ticket-document.js';

/**
 * Removing the acceptance suite's published ticket from a Knowledge Base with the function's own
 * adapter: the document, then its sidecar (so no sync sees the document without its metadata),
 * then a sync, so its vectors go too. A sync refused because one is running is retried for a
 * minute; after that the next sync removes the vectors.
 */
export function createPublishedTicketRemoval(
  options: Omit<KnowledgeBaseDocumentsOptions, 'syncRetryDelaysMs' | 'syncDescription' | 'sleep'>,
) {
  const documents = createKnowledgeBaseDocuments({
    ...options,
    syncRetryDelaysMs: Array.from({ length: 12 }, () => 5000),
    syncDescription: 'Acceptance suite: remove its probe ticket',
  });
  return async (issueId: string): Promise<'synced' | 'sync-pending'> => {
    await documents.remove(ticketDocumentNames(issueId));
    return (await documents.startSync()) === 'started' ? 'synced' : 'sync-pending';
  };
}
