/**
 * Runs every benchmark's `main()` one after another (`npm run bench`). A bench that is missing
 * or throws is reported and the others still run; the exit code is always 0, because benchmarks
 * print figures beside targets and never fail CI.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const BENCHES = ['parser', 'sse', 'store', 'web', 'chat', 'caching'] as const;
/** After the summary, give stray handles (sockets, timers) this long before exiting anyway. */
const EXIT_GRACE_MS = 5_000;

interface Outcome {
  readonly bench: string;
  readonly status: 'ok' | 'failed' | 'missing';
  readonly seconds: number;
  readonly detail?: string;
}

export async function main(): Promise<Outcome[]> {
  const benchDir = fileURLToPath(new URL('.', import.meta.url));
  const outcomes: Outcome[] = [];
  for (const bench of BENCHES) {
    const path = join(benchDir, bench, 'run.ts');
    if (!existsSync(path)) {
      outcomes.push({ bench, status: 'missing', seconds: 0, detail: `no ${bench}/run.ts` });
      continue;
    }
    console.log(`\n======== bench/${bench} ========\n`);
    const startedAt = performance.now();
    try {
      const module = (await import(pathToFileURL(path).href)) as { main?: () => unknown };
      if (typeof module.main !== 'function') throw new Error(`${bench}/run.ts exports no main()`);
      await module.main();
      outcomes.push({ bench, status: 'ok', seconds: (performance.now() - startedAt) / 1e3 });
    } catch (error) {
      console.error(`bench/${bench} failed:`, error);
      outcomes.push({
        bench,
        status: 'failed',
        seconds: (performance.now() - startedAt) / 1e3,
        detail: error instanceof Error ? error.message : String(error),
      });
    }
  }
  console.log('\n======== summary ========');
  for (const outcome of outcomes) {
    const seconds = outcome.status === 'missing' ? '' : `${outcome.seconds.toFixed(1)} s`;
    console.log(
      `  ${outcome.bench.padEnd(8)} ${outcome.status.padEnd(8)} ${seconds.padStart(8)}  ${outcome.detail ?? ''}`,
    );
  }
  return outcomes;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
  // A bench that leaves a socket or timer open must not hang `npm run bench`.
  setTimeout(() => {
    console.error(
      `run-all: something was still open ${EXIT_GRACE_MS} ms after the last bench; exiting`,
    );
    process.exit(0);
  }, EXIT_GRACE_MS).unref();
}
