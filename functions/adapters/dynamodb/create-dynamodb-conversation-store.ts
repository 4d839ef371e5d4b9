import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ConversationStore } from '../../chat/ports.js';
import {
  appendAssistantTurn,
  appendUserTurn,
  claimGeneration,
  releaseGeneration,
  renewGeneration,
} from './append-turn.js';
import {
  deleteConversation,
  isStopRequested,
  recordFeedback,
  recordMailDraft,
  recordPublishedKnowledge,
  renameConversation,
  requestStop,
} from './change-conversation.js';
import { getConversation, listConversations, loadConversation } from './read-conversations.js';
import type { StoreContext, StoreHooks } from './store-context.js';
import { translateUnavailable } from './store-unavailable.js';
import type { ConversationTableNames } from './table-definitions.js';
import { createTurnCache } from './turn-cache.js';
import { type BackoffOptions, jitteredBackoff } from './versioned-commit.js';

/** The per-container history cache the API function gives its store, in (estimated) bytes. */
export const TURN_CACHE_MAX_BYTES = 32 * 1024 * 1024;

export interface DynamoDbConversationStoreOptions {
  /** Created once per container and shared; a plain client is wrapped in a document client. */
  readonly client: DynamoDBClient | DynamoDBDocumentClient;
  readonly tables: ConversationTableNames;
  /** Conversations live this long after their last activity; each turn this long after it was written. */
  readonly retentionDays: number;
  /** Upper bound of the per-container history cache, in (estimated) bytes. 0 disables caching. */
  readonly cacheMaxBytes: number;
  readonly now: () => Date;
  /** Attempts per write (and per read that raced a write) before `ConversationConflictError`. @default 10 */
  readonly maxAttempts?: number;
  /** Jittered backoff between attempts. @default { baseDelayMs: 10, maxDelayMs: 500 } */
  readonly backoff?: BackoffOptions;
  /**
   * Send `clientMessageId` as `ClientRequestToken` (DynamoDB's own 10-minute idempotency).
   * The stored marker guarantees idempotency either way; tests turn this off to exercise the
   * marker alone, as after the window. @default true
   */
  readonly clientRequestTokens?: boolean;
  /** Test seams; see `StoreHooks`. */
  readonly hooks?: StoreHooks;
}

/**
 * The conversation store on DynamoDB: version-counted, conditionally written, cached per container.
 * Protocol and its reasons: docs/adr/0003-conversation-store-protocol.md.
 *
 * @example
 * const store = createDynamoDbConversationStore({
 *   client: new DynamoDBClient({}),
 *   tables: { conversations: process.env.CONVERSATIONS_TABLE!, turns: process.env.TURNS_TABLE! },
 *   retentionDays: 90,
 *   cacheMaxBytes: TURN_CACHE_MAX_BYTES,
 *   now: () => new Date(),
 * });
 */
export function createDynamoDbConversationStore(
  options: DynamoDbConversationStoreOptions,
): ConversationStore {
  const context: StoreContext = {
    documents:
      options.client instanceof DynamoDBDocumentClient
        ? options.client
        : DynamoDBDocumentClient.from(options.client, {
            marshallOptions: { removeUndefinedValues: true },
          }),
    tables: options.tables,
    cache: createTurnCache(options.cacheMaxBytes),
    now: options.now,
    retentionSeconds: Math.round(options.retentionDays * 86_400),
    maxAttempts: Math.max(1, options.maxAttempts ?? 10),
    backoff: jitteredBackoff(options.backoff),
    clientRequestTokens: options.clientRequestTokens ?? true,
    hooks: options.hooks ?? {},
  };
  return translateUnavailable({
    appendUserTurn: (owner, input) => appendUserTurn(context, owner, input),
    appendAssistantTurn: (owner, input) => appendAssistantTurn(context, owner, input),
    getConversation: (owner, id) => getConversation(context, owner, id),
    loadConversation: (owner, id) => loadConversation(context, owner, id),
    listConversations: (owner, listOptions) => listConversations(context, owner, listOptions),
    renameConversation: (owner, id, title) => renameConversation(context, owner, id, title),
    deleteConversation: (owner, id) => deleteConversation(context, owner, id),
    recordFeedback: (owner, id, seq, feedback) => recordFeedback(context, owner, id, seq, feedback),
    recordMailDraft: (owner, id, seq, change) => recordMailDraft(context, owner, id, seq, change),
    recordPublishedKnowledge: (owner, id, published) =>
      recordPublishedKnowledge(context, owner, id, published),
    requestStop: (owner, id, userSeq) => requestStop(context, owner, id, userSeq),
    isStopRequested: (owner, id, userSeq) => isStopRequested(context, owner, id, userSeq),
    claimGeneration: (owner, id, claim) => claimGeneration(context, owner, id, claim),
    releaseGeneration: (owner, id, holder) => releaseGeneration(context, owner, id, holder),
    renewGeneration: (owner, renewal) => renewGeneration(context, owner, renewal),
  });
}
