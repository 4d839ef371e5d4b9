import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import * as z from 'zod';
import { createExpiredConversationSweeper } from '../adapters/dynamodb/expire-conversations.js';

const environment = z
  .object({ TURNS_TABLE: z.string().min(1), DYNAMODB_ENDPOINT: z.string().url().optional() })
  .parse(process.env);

/**
 * The retention sweeper behind the `Conversations` stream (TTL deletions only, filtered by the
 * event source mapping): deletes the turns of each expired conversation.
 */
export const handler = createExpiredConversationSweeper({
  client: new DynamoDBClient({ endpoint: environment.DYNAMODB_ENDPOINT }),
  turnsTable: environment.TURNS_TABLE,
});
