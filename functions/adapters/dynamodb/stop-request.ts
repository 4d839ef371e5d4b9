import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConversationNotFoundError, type Owner } from '../../chat/ports.js';
import { ownerIdForConversation } from './conversation-keys.js';
import { sendToExistingConversation } from './send-to-existing-conversation.js';
import type { StoreContext } from './store-context.js';

/**
 * Records a stop request on the conversation row. Lambda cannot see the browser disconnect, so
 * the generation polls this flag. It is control state, not history: `version` does not move and
 * no cache is invalidated.
 */
export async function requestStop(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
): Promise<void> {
  const ownerId = ownerIdForConversation(owner, conversationId);
  await sendToExistingConversation(
    context,
    new UpdateCommand({
      TableName: context.tables.conversations,
      Key: { ownerId, conversationId },
      UpdateExpression: 'SET stopRequestedAt = :now',
      ConditionExpression: 'attribute_exists(ownerId)',
      ExpressionAttributeValues: { ':now': context.now().toISOString() },
    }),
  );
}

/** True when a stop was requested after `since` (ISO time the generation started). */
export async function isStopRequested(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
  since: string,
): Promise<boolean> {
  const ownerId = ownerIdForConversation(owner, conversationId);
  const { Item } = await context.documents.send(
    new GetCommand({
      TableName: context.tables.conversations,
      Key: { ownerId, conversationId },
      ProjectionExpression: 'stopRequestedAt, conversationId',
      ConsistentRead: true,
    }),
  );
  if (!Item) throw new ConversationNotFoundError();
  const requestedAt = Item.stopRequestedAt as string | undefined;
  return requestedAt !== undefined && Date.parse(requestedAt) > Date.parse(since);
}
