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
