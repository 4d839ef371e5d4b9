import { type DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Owner } from '../../functions/chat/ports.js';

/**
 * The tokens committed on `day` (UTC, `YYYY-MM-DD`) as the DynamoDB daily budget stores them
 * (`functions/adapters/dynamodb/counters.ts`): read straight from the Turns table, consistently,
 * so a test sees what the conditional writes left; 0 for a day never touched.
 */
export async function readCommittedTokens(
  documents: DynamoDBDocumentClient,
  turnsTable: string,
  owner: Owner,
  day: string,
): Promise<number> {
  const { Item } = await documents.send(
    new GetCommand({
      TableName: turnsTable,
      Key: { conversationKey: `${owner.tenantId}#${owner.userId}#budget#${day}`, seq: 0 },
      ConsistentRead: true,
    }),
  );
  return Number(Item?.tokens ?? 0);
}
