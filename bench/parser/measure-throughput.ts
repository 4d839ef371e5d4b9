/**
 * Times `run` and returns the fastest run in milliseconds. The fastest is the least disturbed by
 * other processes on a shared machine. A warm-up phase first lets the JIT reach its top tier
 * (one run is not enough for small inputs); synchronous runs are not awaited, because an
 * `await` per run would be timed too.
 */
export async function measureThroughput(
  run: () => Promise<void> | void,
  { budgetMs = 400, minRuns = 3, maxRuns = 100_000, warmUpMs = 300 } = {},
): Promise<number> {
  const warmUpStarted = performance.now();
  while (performance.now() - warmUpStarted < warmUpMs) {
    const pending = run();
    if (pending !== undefined) await pending;
  }
  let best = Number.POSITIVE_INFINITY;
  const started = performance.now();
  for (let runs = 0; runs < maxRuns; runs++) {
    const before = performance.now();
    const pending = run();
    if (pending !== undefined) await pending;
    best = Math.min(best, performance.now() - before);
    if (runs + 1 >= minRuns && performance.now() - started > budgetMs) break;
  }
  return best;
}
