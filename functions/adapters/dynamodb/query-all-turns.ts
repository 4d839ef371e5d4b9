import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { StoreContext } from './store-context.js';
import type { TurnItem } from './turn-item.js';

/** Every turn of one conversation in `seq` order: consistent reads, following every page. */
export async function queryAllTurns(
  context: StoreContext,
  conversationKey: string,
  projection?: string,
): Promise<TurnItem[]> {
  const turns: TurnItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await context.documents.send(
      new QueryCommand({
        TableName: context.tables.turns,
        KeyConditionExpression: 'conversationKey = :key',
        ExpressionAttributeValues: { ':key': conversationKey },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
        ...(projection ? { ProjectionExpression: projection } : {}),
      }),
    );
    turns.push(...((page.Items ?? []) as TurnItem[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return turns;
}
