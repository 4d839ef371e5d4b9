import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ConversationTableNames } from './table-definitions.js';
import type { TurnCache } from './turn-cache.js';

/** Test seams. Production code passes none. */
export interface StoreHooks {
  /**
   * Runs after the expected version was read and before the transaction that depends on it is
   * sent — lets a test pause a writer exactly where a concurrent commit can overtake it.
   */
  beforeCommit?(context: {
    readonly conversationId: string | undefined;
    readonly expectedVersion: number | undefined;
    readonly attempt: number;
  }): Promise<void> | void;
}

/** Everything the store's operations share; built once by `createDynamoDbConversationStore`. */
export interface StoreContext {
  readonly documents: DynamoDBDocumentClient;
  readonly tables: ConversationTableNames;
  readonly cache: TurnCache;
  readonly now: () => Date;
  readonly retentionSeconds: number;
  readonly maxAttempts: number;
  readonly backoff: (attempt: number) => Promise<void>;
  readonly clientRequestTokens: boolean;
  readonly hooks: StoreHooks;
}

/** TTL value for an item written now: epoch seconds, `retentionDays` ahead. */
export function expiresAtFrom(context: StoreContext, now: Date): number {
  return Math.floor(now.getTime() / 1000) + context.retentionSeconds;
}

export function nowSeconds(context: StoreContext): number {
  return Math.floor(context.now().getTime() / 1000);
}

/** The cache key: owner and conversation, so one owner's entry is never another's hit. */
export function cacheKeyOf(ownerId: string, conversationId: string): string {
  return `${ownerId}\n${conversationId}`;
}
