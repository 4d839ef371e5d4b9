import {
  ConversationNotFoundError,
  type ConversationSummary,
  type Owner,
} from '../../chat/ports.js';
import type { TurnStatus } from '../../contract/chat-events.js';
import { commitWithVersion } from './commit-with-version.js';
import { toConversationSummary } from './conversation-item.js';
import { conversationKeyOf, isConversationId, ownerIdOf } from './conversation-keys.js';
import { cacheKeyOf, type StoreContext } from './store-context.js';
import { advanceCachedConversation } from './turn-cache.js';
import { updateConversationAtVersion } from './update-conversation-at-version.js';

/**
 * Changes one turn's status (e.g. `stopped` after the fact) and bumps the version in the same
 * transaction, so every cache holding the old status misses. A missing turn is not-found.
 */
export async function setTurnStatus(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
  seq: number,
  status: TurnStatus,
): Promise<ConversationSummary> {
  const ownerId = ownerIdOf(owner);
  if (!isConversationId(conversationId) || !Number.isInteger(seq) || seq < 1) {
    throw new ConversationNotFoundError();
  }
  return commitWithVersion(context, {
    ownerId,
    conversationId,
    plan(state) {
      if (!state || seq > state.turnCount) throw new ConversationNotFoundError();
      const { item, after } = updateConversationAtVersion(context, state, {});
      return {
        items: [
          item,
          {
            Update: {
              TableName: context.tables.turns,
              Key: { conversationKey: conversationKeyOf(ownerId, conversationId), seq },
              UpdateExpression: 'SET #status = :status',
              ConditionExpression: 'attribute_exists(conversationKey)',
              ExpressionAttributeNames: { '#status': 'status' },
              ExpressionAttributeValues: { ':status': status },
            },
          },
        ],
        committed() {
          const key = cacheKeyOf(ownerId, conversationId);
          advanceCachedConversation(context.cache, key, state.version, after, (turns) =>
            turns.map((turn) => (turn.seq === seq ? { ...turn, status } : turn)),
          );
          return toConversationSummary(after);
        },
      };
    },
    otherConditionFailed: () => new ConversationNotFoundError(),
  });
}
