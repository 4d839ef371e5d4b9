import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { createExpiredConversationSweeper } from '../adapters/dynamodb/expire-conversations.js';
import { createDynamoDbInsightsStore } from '../adapters/dynamodb/insights-store.js';

const environment = z
  .object({
    TURNS_TABLE: z.string().min(1),
    /** Unset (a stack from before insights): only the turns are swept. */
    INSIGHTS_TABLE: z.string().min(1).optional(),
    DYNAMODB_ENDPOINT: z.string().url().optional(),
  })
  .parse(process.env);

const logger = new Logger({ serviceName: 'service-desk-retention' });
const client = new DynamoDBClient({ endpoint: environment.DYNAMODB_ENDPOINT });
const insights =
  environment.INSIGHTS_TABLE &&
  createDynamoDbInsightsStore({
    documents: DynamoDBDocumentClient.from(client),
    tableName: environment.INSIGHTS_TABLE,
    // Only forgetConversation runs here, which writes nothing that expires.
    retentionDays: 1,
    now: () => new Date(),
  });

/**
 * The retention sweeper behind the `Conversations` stream (TTL deletions only, filtered by the
 * event source mapping): deletes the turns of each expired conversation, and its insights
 * examples and solved inquiry (ADR 0022).
 */
export const handler = createExpiredConversationSweeper({
  client,
  turnsTable: environment.TURNS_TABLE,
  log: { error: (message, fields) => logger.error(message, { ...fields }) },
  ...(insights ? { insights } : {}),
});
