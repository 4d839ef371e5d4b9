import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ConversationItem } from './conversation-item.js';
import type { StoreContext } from './store-context.js';
import { nowSeconds } from './store-context.js';
import { isExpired } from './turn-item.js';

/**
 * Strongly consistent read of one conversation row — the source of truth for its `version`.
 * `undefined` when missing, expired, or not this owner's (the owner is part of the key).
 */
export async function readConversationItem(
  context: StoreContext,
  ownerId: string,
  conversationId: string,
): Promise<ConversationItem | undefined> {
  const { Item } = await context.documents.send(
    new GetCommand({
      TableName: context.tables.conversations,
      Key: { ownerId, conversationId },
      ConsistentRead: true,
    }),
  );
  const item = Item as ConversationItem | undefined;
  return item && !isExpired(item, nowSeconds(context)) ? item : undefined;
}
