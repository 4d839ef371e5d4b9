import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ListConversationsResult, Owner } from '../../chat/ports.js';
import { type ConversationItem, toConversationSummary } from './conversation-item.js';
import { ownerIdOf } from './conversation-keys.js';
import { decodeListCursor, encodeListCursor } from './list-cursor.js';
import { nowSeconds, type StoreContext } from './store-context.js';
import { conversationsTable } from './table-definitions.js';
import { isExpired } from './turn-item.js';

const defaultLimit = 20;
const maxLimit = 100;

/** The owner's conversations, most recent activity first, through the `byUpdatedAt` LSI. */
export async function listConversations(
  context: StoreContext,
  owner: Owner,
  options: { limit?: number; cursor?: string } = {},
): Promise<ListConversationsResult> {
  const ownerId = ownerIdOf(owner);
  const limit = Math.min(Math.max(1, Math.floor(options.limit ?? defaultLimit)), maxLimit);
  const start = options.cursor === undefined ? undefined : decodeListCursor(options.cursor);
  const page = await context.documents.send(
    new QueryCommand({
      TableName: context.tables.conversations,
      IndexName: conversationsTable.localSecondaryIndexes[0].indexName,
      KeyConditionExpression: 'ownerId = :ownerId',
      ExpressionAttributeValues: { ':ownerId': ownerId },
      ScanIndexForward: false,
      // An LSI shares the base table's partition, so it supports consistent reads.
      ConsistentRead: true,
      Limit: limit,
      ...(start ? { ExclusiveStartKey: { ownerId, ...start } } : {}),
    }),
  );
  const now = nowSeconds(context);
  const items = ((page.Items ?? []) as ConversationItem[]).filter((item) => !isExpired(item, now));
  const last = page.LastEvaluatedKey as ConversationItem | undefined;
  return {
    items: items.map(toConversationSummary),
    ...(last ? { nextCursor: encodeListCursor(last) } : {}),
  };
}
