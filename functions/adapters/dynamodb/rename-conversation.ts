import {
  ConversationNotFoundError,
  type ConversationSummary,
  type Owner,
} from '../../chat/ports.js';
import { commitWithVersion } from './commit-with-version.js';
import { toConversationSummary } from './conversation-item.js';
import { ownerIdForConversation } from './conversation-keys.js';
import { cacheKeyOf, type StoreContext } from './store-context.js';
import { advanceCachedConversation } from './turn-cache.js';
import { assertTitleFits } from './turn-size-limits.js';
import { updateConversationAtVersion } from './update-conversation-at-version.js';

/** Renames a conversation; bumps `version` (the ETag) but not `updatedAt` (the sidebar order). */
export async function renameConversation(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
  title: string,
): Promise<ConversationSummary> {
  const ownerId = ownerIdForConversation(owner, conversationId);
  assertTitleFits(title);
  return commitWithVersion(context, {
    ownerId,
    conversationId,
    plan(state) {
      if (!state) throw new ConversationNotFoundError();
      const { item, after } = updateConversationAtVersion(context, state, { title });
      return {
        items: [item],
        committed() {
          const key = cacheKeyOf(ownerId, conversationId);
          advanceCachedConversation(context.cache, key, state.version, after, (turns) => turns);
          return toConversationSummary(after);
        },
      };
    },
  });
}
