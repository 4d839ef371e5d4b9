import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import {
  ConversationConflictError,
  ConversationNotFoundError,
} from '../../chat/conversation-store.js';
import { classifyCommitFailure } from './classify-commit-failure.js';
import { conversationFromCancellation } from './conversation-from-cancellation.js';
import type { ConversationItem } from './conversation-item.js';
import { readConversationItem } from './read-conversation-item.js';
import { cacheKeyOf, type StoreContext } from './store-context.js';

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** One attempt's transaction, planned from the conversation state it is conditioned on. */
export interface CommitPlan<T> {
  /** Item 0 writes the conversation row, conditioned on the expected version (or on absence). */
  readonly items: TransactItem[];
  /** Index of the idempotency-marker put, when there is one. */
  readonly markerIndex?: number;
  readonly clientRequestToken?: string;
  /** Runs once the transaction landed; updates the cache and builds the result. */
  committed(): T;
}

export interface VersionedCommit<T> {
  readonly ownerId: string;
  /** Absent when the commit creates the conversation. */
  readonly conversationId?: string;
  plan(state: ConversationItem | undefined): CommitPlan<T>;
  /** The earlier result for this idempotency key, or undefined when there is none. */
  duplicate?(): Promise<T | undefined>;
}

/**
 * Optimistic concurrency for every change to a conversation: read the version, plan a
 * `TransactWriteItems` conditioned on it, commit; on conflict retry from the current row (returned
 * by the failed condition, else re-read) after a jittered backoff, at most `maxAttempts` times,
 * then `ConversationConflictError`.
 */
export async function commitWithVersion<T>(
  context: StoreContext,
  commit: VersionedCommit<T>,
): Promise<T> {
  let useToken = context.clientRequestTokens;
  let lastError: unknown;
  let current: ConversationItem | undefined;
  for (let attempt = 1; attempt <= context.maxAttempts; attempt++) {
    if (attempt > 1) await context.backoff(attempt - 1);
    const state = current ?? (await expectedState(context, commit, attempt));
    current = undefined;
    await context.hooks.beforeCommit?.({
      conversationId: commit.conversationId,
      expectedVersion: state?.version,
      attempt,
    });
    const plan = commit.plan(state);
    try {
      await context.documents.send(
        new TransactWriteCommand({
          TransactItems: plan.items,
          ...(useToken && plan.clientRequestToken
            ? { ClientRequestToken: plan.clientRequestToken }
            : {}),
        }),
      );
      return plan.committed();
    } catch (error) {
      lastError = error;
      const failure = classifyCommitFailure(error, plan.markerIndex);
      if (failure === 'duplicate' || failure === 'token-mismatch') {
        const earlier = await commit.duplicate?.();
        if (earlier !== undefined) return earlier;
        // A token poisoned by an earlier request with other parameters would fail every attempt
        // for 10 minutes; the stored marker alone still guarantees idempotency.
        if (failure === 'token-mismatch') useToken = false;
        continue;
      }
      if (failure === 'retry') {
        if (commit.conversationId !== undefined) current = conversationFromCancellation(error, 0);
        continue;
      }
      if (failure === 'other-condition') throw new ConversationConflictError({ cause: error });
      throw error;
    }
  }
  throw new ConversationConflictError({ cause: lastError });
}

/**
 * The state to condition on. First attempt: this container's cached row if it has one (usually
 * current — the chat pipeline loaded the conversation just before), saving a read; a stale guess
 * only costs one failed condition. Later attempts read (unless the failure returned the row).
 */
async function expectedState<T>(
  context: StoreContext,
  commit: VersionedCommit<T>,
  attempt: number,
): Promise<ConversationItem | undefined> {
  if (commit.conversationId === undefined) return undefined;
  const cached =
    attempt === 1
      ? context.cache.get(cacheKeyOf(commit.ownerId, commit.conversationId))?.conversation
      : undefined;
  const state =
    cached ?? (await readConversationItem(context, commit.ownerId, commit.conversationId));
  if (!state) throw new ConversationNotFoundError();
  return state;
}
