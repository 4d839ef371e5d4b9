import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import {
  GetCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { ConversationConflictError, ConversationNotFoundError } from '../../chat/errors.js';
import {
  type ConversationItem,
  expiresAtFrom,
  isExpired,
  nowSeconds,
} from './conversation-items.js';
import type { StoreContext } from './store-context.js';
import { cacheKeyOf } from './turn-cache.js';

/**
 * The versioned commit protocol (docs/adr/0003-conversation-store-protocol.md): every change to a
 * conversation is one `TransactWriteItems` conditioned on `version = expected` on its row; on
 * conflict the change is planned again from the current row, after a jittered backoff.
 */

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** One attempt's transaction, planned from the conversation state it is conditioned on. */
export interface CommitPlan<T> {
  /** Item 0 writes the conversation row, conditioned on the expected version (or on absence). */
  readonly items: TransactItem[];
  /** Index of the idempotency-marker put, when there is one. */
  readonly markerIndex?: number;
  readonly clientRequestToken?: string;
  /**
   * What a failed condition on an item other than the conversation row and the marker means
   * for this change. @default ConversationConflictError
   */
  otherConditionFailed?(error: unknown): Error;
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
        if (commit.conversationId !== undefined) {
          // An expired row (TTL not yet applied) fails the condition for good: re-read instead,
          // which answers not-found.
          const returned = conversationFromCancellation(error, 0);
          current = returned && !isExpired(returned, nowSeconds(context)) ? returned : undefined;
        }
        continue;
      }
      if (failure === 'other-condition') {
        throw plan.otherConditionFailed?.(error) ?? new ConversationConflictError({ cause: error });
      }
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

/**
 * Strongly consistent read of one conversation row — the source of truth for its `version`.
 * `undefined` when missing, expired, or not this owner's (the owner is part of the key).
 */
export async function readConversationItem(
  context: StoreContext,
  ownerId: string,
  conversationId: string,
): Promise<ConversationItem | undefined> {
  const { Item } = await context.documents.send(
    new GetCommand({
      TableName: context.tables.conversations,
      Key: { ownerId, conversationId },
      ConsistentRead: true,
    }),
  );
  const item = Item as ConversationItem | undefined;
  return item && !isExpired(item, nowSeconds(context)) ? item : undefined;
}

/** A further condition on the conversation row; its placeholders must not start with `#f`/`:f`. */
export interface ExtraCondition {
  readonly expression: string;
  readonly names?: Record<string, string>;
  readonly values?: Record<string, unknown>;
}

type MutableFields = Partial<
  Omit<ConversationItem, 'ownerId' | 'conversationId' | 'version' | 'expiresAt'>
>;

/**
 * The conversation half of a versioned commit: `SET version = expected + 1`, `expiresAt` =
 * `retentionDays` from now (every commit is activity: the conversation lasts `retentionDays`
 * after its last one) plus `changes` (an `undefined` value REMOVEs the attribute), conditioned on
 * `version = expected` and on the row not having expired. A missing row fails the condition too,
 * so a deleted conversation can never be written back; neither can an expired one that TTL has
 * not removed yet (TTL deletion is lazy), which would otherwise come back to life. `alsoRequire`
 * adds a condition on control state that changes without a version bump (a renewed `answering`
 * lease), which a cached row cannot be trusted on; when it fails, the retry plans from the
 * returned row like any conflict.
 * Returns the transaction item and the row as it will be once committed.
 */
export function updateConversationAtVersion(
  context: StoreContext,
  state: ConversationItem,
  changes: MutableFields,
  now: Date = context.now(),
  alsoRequire?: ExtraCondition,
): { item: TransactItem; after: ConversationItem } {
  const expiresAt = expiresAtFrom(context, now);
  const names: Record<string, string> = { '#version': 'version', '#expiresAt': 'expiresAt' };
  const values: Record<string, unknown> = {
    ':expected': state.version,
    ':next': state.version + 1,
    ':expiresAt': expiresAt,
    ':now': Math.floor(now.getTime() / 1000),
  };
  const set = ['#version = :next', '#expiresAt = :expiresAt'];
  const remove: string[] = [];
  Object.entries(changes).forEach(([field, value], index) => {
    names[`#f${index}`] = field;
    if (value === undefined) {
      remove.push(`#f${index}`);
    } else {
      values[`:f${index}`] = value;
      set.push(`#f${index} = :f${index}`);
    }
  });
  const item: TransactItem = {
    Update: {
      TableName: context.tables.conversations,
      Key: { ownerId: state.ownerId, conversationId: state.conversationId },
      UpdateExpression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
      ConditionExpression: `#version = :expected AND (attribute_not_exists(#expiresAt) OR #expiresAt > :now)${
        alsoRequire ? ` AND (${alsoRequire.expression})` : ''
      }`,
      ExpressionAttributeNames: { ...names, ...alsoRequire?.names },
      ExpressionAttributeValues: { ...values, ...alsoRequire?.values },
      // On conflict DynamoDB hands back the current row: the retry plans from it without a read.
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    },
  };
  const after = {
    ...state,
    ...changes,
    version: state.version + 1,
    expiresAt,
  } as ConversationItem;
  return { item, after };
}

/**
 * What a failed `TransactWriteItems` means for a versioned commit.
 * - `duplicate`: the idempotency marker already exists — the message was stored before.
 * - `token-mismatch`: the `ClientRequestToken` was used in the last 10 minutes with other
 *   parameters (a retried POST, or our own retry at a newer version).
 * - `retry`: the version moved, the conversation vanished, or a concurrent transaction or throttle
 *   got in the way — re-read and try again.
 * - `other-condition`: a condition on another item failed.
 * - `unknown`: not ours to translate; rethrow.
 *
 * The JS SDK v3 exposes `CancellationReasons` on `TransactionCanceledException`, ordered like
 * `TransactItems`, `Code: 'None'` for items that were fine (verified against DynamoDB Local in
 * test/adapters/dynamodb/transaction-cancellation.test.ts).
 */
export type CommitFailure =
  | 'duplicate'
  | 'token-mismatch'
  | 'retry'
  | 'other-condition'
  | 'unknown';

/** Index 0 of every versioned commit is the conversation row carrying the version condition. */
const conversationIndex = 0;
const retryableCodes = new Set([
  'TransactionConflict',
  'ThrottlingError',
  'ProvisionedThroughputExceeded',
  'RequestLimitExceeded',
]);

export function classifyCommitFailure(error: unknown, markerIndex?: number): CommitFailure {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'IdempotentParameterMismatchException') return 'token-mismatch';
  // The same token is still being processed by a concurrent request.
  if (name === 'TransactionInProgressException') return 'retry';
  if (name !== 'TransactionCanceledException') return 'unknown';
  const codes = cancellationCodes(error);
  if (markerIndex !== undefined && codes[markerIndex] === 'ConditionalCheckFailed') {
    return 'duplicate';
  }
  if (codes[conversationIndex] === 'ConditionalCheckFailed') return 'retry';
  if (codes.some((code) => retryableCodes.has(code))) return 'retry';
  if (codes.includes('ConditionalCheckFailed')) return 'other-condition';
  return 'unknown';
}

function cancellationCodes(error: unknown): string[] {
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (reasons ?? []).map((reason) => reason.Code ?? 'None');
}

/**
 * The current conversation row that DynamoDB returns with a failed version condition
 * (`ReturnValuesOnConditionCheckFailure: 'ALL_OLD'`), so a retry needs no extra read.
 * The document client does not unmarshall errors, so the row arrives as raw attribute values.
 * `undefined` when the row is gone (deleted) or absent.
 */
/**
 * The item a cancelled transaction returned for its `index`-th write (that write asked for it
 * with `ReturnValuesOnConditionCheckFailure: 'ALL_OLD'` and its condition failed), unmarshalled;
 * undefined when there is none (the item is missing, or another write failed).
 */
export function itemFromCancellation(
  error: unknown,
  index: number,
): Record<string, unknown> | undefined {
  const reasons = (error as { CancellationReasons?: { Item?: Record<string, AttributeValue> }[] })
    .CancellationReasons;
  const raw = reasons?.[index]?.Item;
  return raw ? unmarshall(raw) : undefined;
}

function conversationFromCancellation(error: unknown, index: number): ConversationItem | undefined {
  const reasons = (error as { CancellationReasons?: { Item?: Record<string, AttributeValue> }[] })
    .CancellationReasons;
  const raw = reasons?.[index]?.Item;
  if (!raw?.version?.N) return undefined;
  return unmarshall(raw) as ConversationItem;
}

export interface BackoffOptions {
  /** First retry waits up to this long. @default 10 */
  readonly baseDelayMs?: number;
  /** No retry waits longer than this. @default 500 */
  readonly maxDelayMs?: number;
}

/**
 * "Full jitter" exponential backoff: a random wait in [0, min(max, base · 2^(attempt-1))).
 * Randomness spreads writers that collided on one version apart, so one wins the next round
 * instead of all failing together again.
 * https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
 */
export function jitteredBackoff(options: BackoffOptions = {}) {
  const base = options.baseDelayMs ?? 10;
  const max = options.maxDelayMs ?? 500;
  return (attempt: number): Promise<void> => {
    const ceiling = Math.min(max, base * 2 ** Math.max(0, attempt - 1));
    return new Promise((wake) => setTimeout(wake, Math.random() * ceiling));
  };
}
