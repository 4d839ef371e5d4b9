import type { ConversationSummary } from '../../../functions/contract/conversations.js';

/**
 * Sidebar order: newest activity first. Earlier lists win, so a fresh first page overrides the
 * stale copy of a conversation that moved up since an older page was loaded.
 */
export function mergeByLastActivity(
  ...lists: (readonly ConversationSummary[])[]
): ConversationSummary[] {
  const byId = new Map<string, ConversationSummary>();
  for (const list of lists) {
    for (const item of list)
      if (!byId.has(item.conversationId)) byId.set(item.conversationId, item);
  }
  return [...byId.values()].sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
}
