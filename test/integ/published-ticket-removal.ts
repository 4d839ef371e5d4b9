import type { BedrockAgentClient } from '@aws-sdk/client-bedrock-agent';
import type { S3Client } from '@aws-sdk/client-s3';
import { createKnowledgeBaseDocuments } from '../../functions/adapters/bedrock/knowledge-base-documents.js';
import { ticketDocumentNames } from '../../functions/knowledge/ticket-document.js';

/**
 * Removing the acceptance suite's published ticket from a Knowledge Base with the function's own
 * adapter: the document, then its sidecar (so no sync sees the document without its metadata),
 * then a sync, so its vectors go too. A sync refused because one is running is retried for a
 * minute; after that the next sync removes the vectors.
 */
export function createPublishedTicketRemoval(options: {
  readonly s3: S3Client;
  readonly agent: BedrockAgentClient;
  readonly bucket: string;
  readonly keyPrefix: string;
  readonly knowledgeBaseId: string;
  readonly dataSourceId: string;
}) {
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
