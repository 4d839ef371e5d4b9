/**
 * Times `run` and returns the fastest run in milliseconds. The fastest is the least disturbed by
 * other processes on a shared machine. Runs at least `minRuns` times and until `budgetMs` is spent.
 */
export async function measureThroughput(
  run: () => Promise<void> | void,
  { budgetMs = 400, minRuns = 3, maxRuns = 200 } = {},
): Promise<number> {
  await run(); // warm up: JIT and inline caches
  let best = Number.POSITIVE_INFINITY;
  const started = performance.now();
  for (let runs = 0; runs < maxRuns; runs++) {
    const before = performance.now();
    await run();
    best = Math.min(best, performance.now() - before);
    if (runs + 1 >= minRuns && performance.now() - started > budgetMs) break;
  }
  return best;
}
