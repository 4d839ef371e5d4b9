/**
 * Milliseconds since the Unix epoch with sub-millisecond precision:
 * `performance.timeOrigin + performance.now()`. Every process of the bench uses it, so a time
 * taken in the local Bedrock endpoint's process can be subtracted from one taken in the client's
 * (same machine, same clock); `Date.now()` would round to whole milliseconds.
 */
export function wallClockNow(): number {
  return performance.timeOrigin + performance.now();
}

/** A `performance.now()` reading of this process, as {@link wallClockNow} would have given it. */
export function toWallClock(performanceNow: number): number {
  return performance.timeOrigin + performanceNow;
}
