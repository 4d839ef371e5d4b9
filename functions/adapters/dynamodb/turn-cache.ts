import { LRUCache } from 'lru-cache';
import type { ConversationItem, TurnItem } from './conversation-items.js';

/** The turns of one conversation exactly as they were at `conversation.version`. */
export interface CachedConversation {
  readonly conversation: ConversationItem;
  readonly turns: readonly TurnItem[];
}

export interface TurnCache {
  get(key: string): CachedConversation | undefined;
  set(key: string, entry: CachedConversation): void;
  delete(key: string): void;
}

/** The cache key: owner and conversation, so one owner's entry is never another's hit. */
export function cacheKeyOf(ownerId: string, conversationId: string): string {
  return `${ownerId}\n${conversationId}`;
}

/** Per-entry bookkeeping the byte count cannot see (object headers, numbers, key strings). */
const overheadBytesPerTurn = 200;

/**
 * A per-container LRU of conversation histories, bounded in bytes (UTF-16 string sizes, roughly
 * what V8 holds). Entries are only ever read after a consistent read proved their version is
 * current, so the cache may be slow (a miss), never wrong.
 */
export function createTurnCache(maxBytes: number): TurnCache {
  const lru = new LRUCache<string, CachedConversation>({
    maxSize: Math.max(1, maxBytes),
    sizeCalculation: (entry) => Math.max(1, estimateBytes(entry)),
  });
  return {
    get: (key) => lru.get(key),
    // An entry larger than the whole cache is simply not stored (lru-cache's maxEntrySize).
    set: (key, entry) => {
      lru.set(key, { conversation: entry.conversation, turns: Object.freeze([...entry.turns]) });
    },
    delete: (key) => {
      lru.delete(key);
    },
  };
}

function estimateBytes(entry: CachedConversation): number {
  let bytes = 2 * entry.conversation.title.length + overheadBytesPerTurn;
  for (const turn of entry.turns) {
    bytes += 2 * turn.text.length + overheadBytesPerTurn;
    if (turn.result) bytes += 2 * JSON.stringify(turn.result).length;
  }
  return bytes;
}

/**
 * After a commit conditioned on `expectedVersion` landed, the cached entry at exactly that version
 * plus this one change is the history at the new version: advance it instead of dropping it, so
 * the next read in this container is a hit. Any other entry is stale and is dropped.
 */
export function advanceCachedConversation(
  cache: TurnCache,
  key: string,
  expectedVersion: number,
  conversation: ConversationItem,
  changeTurns: (turns: readonly TurnItem[]) => readonly TurnItem[],
): void {
  const cached = cache.get(key);
  if (cached && cached.conversation.version === expectedVersion) {
    cache.set(key, { conversation, turns: changeTurns(cached.turns) });
  } else {
    cache.delete(key);
  }
}
