import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ConversationTableNames } from './table-definitions.js';
import type { TurnCache } from './turn-cache.js';

/**
 * What the DynamoDB store's operations share: the client, the tables, the cache, the clock and
 * the retry policy, built once by `createDynamoDbConversationStore`. Its own module so the
 * operations (`append-turn.ts`, `change-conversation.ts`, `read-conversations.ts`, …) can take
 * it without importing the facade that imports them.
 */
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
