import { StoreUnavailableError } from '../../chat/errors.js';

/**
 * What "DynamoDB is down" means to every DynamoDB adapter: an unreachable or overloaded table
 * becomes `StoreUnavailableError` (a retryable 503 `store_unavailable` for the API), whichever
 * store met it — conversations, the daily budget's counter, the insights aggregates. One
 * classification, so an outage answers the same on every route.
 */

/** Service-side errors that say "not now" rather than "not like this" (after the SDK's own retries). */
const UNAVAILABLE_ERROR_NAMES = new Set([
  'InternalServerError',
  'ServiceUnavailable',
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'LimitExceededException',
  'TimeoutError',
]);
/** Node's socket and DNS errors: DynamoDB (or DynamoDB Local) is not reachable at all. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** Whether an SDK error means the store cannot be reached or is overloaded (not a bad request). */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, $metadata } = error as { code?: unknown; $metadata?: { httpStatusCode?: number } };
  return (
    UNAVAILABLE_ERROR_NAMES.has(error.name) ||
    (typeof code === 'string' && NETWORK_ERROR_CODES.has(code)) ||
    ($metadata?.httpStatusCode ?? 0) >= 500
  );
}

/**
 * Every operation of a store (an object of async functions), with an unreachable or overloaded
 * DynamoDB translated into `StoreUnavailableError` — the only SDK errors translated here; the
 * rest propagate as they are and stay 500s.
 */
export function translateUnavailable<Store extends object>(store: Store): Store {
  const translate = (error: unknown): never => {
    throw isStoreUnavailable(error) ? new StoreUnavailableError({ cause: error }) : error;
  };
  return Object.fromEntries(
    Object.entries(store).map(([name, operation]) => [
      name,
      (...args: unknown[]) =>
        (operation as (...args: unknown[]) => Promise<unknown>)(...args).catch(translate),
    ]),
  ) as Store;
}
