import {
  ConversationConflictError,
  ConversationNotFoundError,
  type ConversationWithTurns,
  type Owner,
} from '../../chat/ports.js';
import { type ConversationItem, toConversationSummary } from './conversation-item.js';
import { conversationKeyOf, ownerIdForConversation } from './conversation-keys.js';
import { queryAllTurns } from './query-all-turns.js';
import { readConversationItem } from './read-conversation-item.js';
import { cacheKeyOf, nowSeconds, type StoreContext } from './store-context.js';
import { isExpired, type TurnItem, toTurn } from './turn-item.js';

/**
 * The conversation and its turns at one version. A consistent read gives the current version;
 * the cache answers when it holds exactly that version. Otherwise the turns are queried and the
 * version re-read: unchanged means no commit happened in between, so the turns are exactly the
 * history at that version and may be cached. Moved means retry.
 */
export async function loadConversation(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
): Promise<ConversationWithTurns> {
  const ownerId = ownerIdForConversation(owner, conversationId);
  const key = cacheKeyOf(ownerId, conversationId);
  for (let attempt = 1; attempt <= context.maxAttempts; attempt++) {
    if (attempt > 1) await context.backoff(attempt - 1);
    const conversation = await readConversationItem(context, ownerId, conversationId);
    if (!conversation) {
      context.cache.delete(key);
      throw new ConversationNotFoundError();
    }
    const cached = context.cache.get(key);
    if (cached && cached.conversation.version === conversation.version) {
      return present(context, conversation, cached.turns);
    }
    const turns = await queryAllTurns(context, conversationKeyOf(ownerId, conversationId));
    const confirmed = await readConversationItem(context, ownerId, conversationId);
    if (!confirmed) throw new ConversationNotFoundError();
    if (confirmed.version === conversation.version) {
      context.cache.set(key, { conversation: confirmed, turns });
      return present(context, confirmed, turns);
    }
  }
  throw new ConversationConflictError();
}

function present(
  context: StoreContext,
  conversation: ConversationItem,
  turns: readonly TurnItem[],
): ConversationWithTurns {
  const now = nowSeconds(context);
  return {
    conversation: toConversationSummary(conversation),
    turns: turns.filter((turn) => !isExpired(turn, now)).map(toTurn),
  };
}
