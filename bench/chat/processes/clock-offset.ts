import { wallClockNow } from '../wall-clock.js';
import type { BenchProcess } from './fork-bench-process.js';

export interface ClockOffset {
  /** Child's {@link wallClockNow} minus ours at the same instant, ms (estimate). */
  readonly offsetMs: number;
  /** Half the round trip of the best sample: the estimate is good to ± this. */
  readonly uncertaintyMs: number;
}

/**
 * Checks that the child's `performance.timeOrigin + performance.now()` agrees with ours, as the
 * overhead figure assumes (NTP-style: ask the child's time, take the midpoint of the round trip
 * with the shortest round trip). Not used to correct the figures, only to bound their error.
 */
export async function measureClockOffset(
  child: BenchProcess<unknown>,
  samples = 50,
): Promise<ClockOffset> {
  let best: ClockOffset = { offsetMs: Number.NaN, uncertaintyMs: Number.POSITIVE_INFINITY };
  for (let sample = 0; sample < samples; sample++) {
    const before = wallClockNow();
    const theirs = await child.call<number>('now');
    const after = wallClockNow();
    const uncertaintyMs = (after - before) / 2;
    if (uncertaintyMs < best.uncertaintyMs)
      best = { offsetMs: theirs - (before + after) / 2, uncertaintyMs };
  }
  return best;
}
