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

export function cancellationCodes(error: unknown): string[] {
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (reasons ?? []).map((reason) => reason.Code ?? 'None');
}
