import type { StreamBenchResult } from '../../web/src/bench/stream-bench-result.js';
import { withBenchPage } from './open-bench-page.js';

/**
 * Streams a long answer through `web/bench.html` (the real reducer and bubble components,
 * production React) in headless Chromium.
 */
export function measureStreaming(options: {
  bytes: number;
  tokensPerSecond: number;
  /** Answers streamed one after another in the same page (shared machines are noisy). */
  runs: number;
}): Promise<StreamBenchResult[]> {
  return withBenchPage('runStreamBench', async (page) => {
    const { runs, ...benchOptions } = options;
    const results: StreamBenchResult[] = [];
    for (let run = 0; run < runs; run += 1) {
      results.push(
        await page.evaluate(
          (o) =>
            (
              window as unknown as { runStreamBench(o: unknown): Promise<StreamBenchResult> }
            ).runStreamBench(o),
          benchOptions,
        ),
      );
    }
    return results;
  });
}
