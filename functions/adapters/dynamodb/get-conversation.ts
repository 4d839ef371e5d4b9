import {
  ConversationNotFoundError,
  type ConversationSummary,
  type Owner,
} from '../../chat/ports.js';
import { toConversationSummary } from './conversation-item.js';
import { ownerIdForConversation } from './conversation-keys.js';
import { readConversationItem } from './read-conversation-item.js';
import type { StoreContext } from './store-context.js';

/** The conversation row alone (one consistent read): cheap enough for ETag / 304 checks. */
export async function getConversation(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
): Promise<ConversationSummary> {
  const ownerId = ownerIdForConversation(owner, conversationId);
  const item = await readConversationItem(context, ownerId, conversationId);
  if (!item) throw new ConversationNotFoundError();
  return toConversationSummary(item);
}
