import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConversationNotFoundError } from '../../chat/conversation-store.js';
import type { Owner } from '../../chat/owner.js';
import { isConversationId, ownerIdOf } from './conversation-keys.js';
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
  const ownerId = ownerIdOf(owner);
  if (!isConversationId(conversationId)) throw new ConversationNotFoundError();
  try {
    await context.documents.send(
      new UpdateCommand({
        TableName: context.tables.conversations,
        Key: { ownerId, conversationId },
        UpdateExpression: 'SET stopRequestedAt = :now',
        ConditionExpression: 'attribute_exists(ownerId)',
        ExpressionAttributeValues: { ':now': context.now().toISOString() },
      }),
    );
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') {
      throw new ConversationNotFoundError();
    }
    throw error;
  }
}

/** True when a stop was requested after `since` (ISO time the generation started). */
export async function isStopRequested(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
  since: string,
): Promise<boolean> {
  const ownerId = ownerIdOf(owner);
  if (!isConversationId(conversationId)) throw new ConversationNotFoundError();
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
