import {
  type BedrockAgentClient,
  ConflictException,
  StartIngestionJobCommand,
} from '@aws-sdk/client-bedrock-agent';
import { DeleteObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/**
 * Removing the acceptance suite's published ticket from a Knowledge Base: its document, then its
 * sidecar (the function's own order reversed, so no sync sees the document without its
 * metadata), then a sync, so its vectors go too. A sync refused because one is running is
 * retried for up to a minute; after that the next sync removes the vectors.
 */
export function createPublishedTicketRemoval(options: {
  readonly s3: S3Client;
  readonly agent: BedrockAgentClient;
  readonly bucket: string;
  readonly keyPrefix: string;
  readonly knowledgeBaseId: string;
  readonly dataSourceId: string;
}) {
  return async (issueId: string): Promise<'synced' | 'sync-pending'> => {
    for (const name of [`${issueId}.md`, `${issueId}.md.metadata.json`]) {
      await options.s3.send(
        new DeleteObjectCommand({ Bucket: options.bucket, Key: `${options.keyPrefix}${name}` }),
      );
    }
    for (let attempt = 0; attempt < 12; attempt++) {
      try {
        await options.agent.send(
          new StartIngestionJobCommand({
            knowledgeBaseId: options.knowledgeBaseId,
            dataSourceId: options.dataSourceId,
            description: `Acceptance suite: remove probe ticket ${issueId}`,
          }),
        );
        return 'synced';
      } catch (error) {
        if (!(error instanceof ConflictException)) throw error;
        await new Promise((resolve) => setTimeout(resolve, 5000));
      }
    }
    return 'sync-pending';
  };
}
