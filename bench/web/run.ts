import { cpus, loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'vite';
import {
  RUNS as DOWNSCALE_RUNS,
  describeDownscale,
  measureDownscale,
} from './measure-downscale.js';
import { measureFirstLoad } from './measure-first-load.js';
import { measureStreaming } from './measure-streaming.js';
import { median, summarizeStreamRun } from './summarize-stream-run.js';

const configFile = fileURLToPath(new URL('../../web/vite.config.ts', import.meta.url));
const distDir = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const TARGET_FIRST_LOAD_KB = 150;
const TARGET_LATE_OVER_EARLY = 1.5;
const ANSWER_BYTES = 20_000;
const TOKENS_PER_SECOND = 100;
const RUNS = 3;

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
function row(metric: string, value: string, target: string, ok?: boolean): string {
  const verdict = ok === undefined ? '' : ok ? 'ok' : 'MISSED';
  return `  ${metric.padEnd(44)} ${value.padStart(12)}   ${target.padEnd(14)} ${verdict}`;
}

/**
 * Web app benchmark: first-load bytes, the main-thread cost per streamed token early vs late
 * in a 20 KB answer at 100 tokens/s, and the composer's downscale of a 12 MP photo. Prints
 * figures beside targets; never fails the build.
 */
export async function main(): Promise<void> {
  // Production React in both builds, whatever the caller's NODE_ENV (vitest sets `test`).
  const previousNodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile, mode: 'production', logLevel: 'warn' });
    const assets = await measureFirstLoad(distDir);
    console.log('First load (what index.html references, gzip level 9):');
    for (const asset of assets)
      console.log(
        `  ${asset.file.padEnd(40)} ${kb(asset.gzipBytes).padStart(10)}  (raw ${kb(asset.bytes)})`,
      );
    const js = assets
      .filter((a) => a.file.endsWith('.js'))
      .reduce((sum, a) => sum + a.gzipBytes, 0);
    const all = assets.reduce((sum, a) => sum + a.gzipBytes, 0);

    const runs = await measureStreaming({
      bytes: ANSWER_BYTES,
      tokensPerSecond: TOKENS_PER_SECOND,
      runs: RUNS,
    });
    const summaries = runs.map(summarizeStreamRun);
    const first = runs[0];
    console.log(
      `\nStreaming ${first?.bytes} bytes as ${first?.tokens} tokens at ${TOKENS_PER_SECOND}/s, ${RUNS} runs (Chromium, production React):`,
    );
    for (const [index, s] of summaries.entries()) {
      console.log(
        `  run ${index + 1}: early ${s.early.toFixed(2)} ms, late ${s.late.toFixed(2)} ms, late/early ${s.ratio.toFixed(2)}x, worst ${s.worst.toFixed(1)} ms, long tasks ${s.longTasks}`,
      );
    }
    const ratio = median(summaries.map((s) => s.ratio));
    const longTasks = median(summaries.map((s) => s.longTasks));
    console.log('\nFigures vs targets (streaming: median of the runs):');
    console.log(
      row(
        'first-load JS gzip',
        kb(js),
        `<= ${TARGET_FIRST_LOAD_KB} KB`,
        js / 1024 <= TARGET_FIRST_LOAD_KB,
      ),
    );
    console.log(row('first-load JS + CSS gzip', kb(all), '(info)'));
    console.log(
      row(
        'main thread per token, first 10% (median)',
        `${median(summaries.map((s) => s.early)).toFixed(2)} ms`,
        '(info)',
      ),
    );
    console.log(
      row(
        'main thread per token, last 10% (median)',
        `${median(summaries.map((s) => s.late)).toFixed(2)} ms`,
        '(info)',
      ),
    );
    console.log(
      row(
        'late / early',
        `${ratio.toFixed(2)}x`,
        `<= ${TARGET_LATE_OVER_EARLY}x`,
        ratio <= TARGET_LATE_OVER_EARLY,
      ),
    );
    console.log(row('long tasks > 50 ms per answer', String(longTasks), '0', longTasks === 0));

    console.log(`\nAttachment downscale in the composer, ${DOWNSCALE_RUNS} runs each (Chromium):`);
    for (const line of describeDownscale(await measureDownscale(DOWNSCALE_RUNS))) console.log(line);
    // Long tasks mostly come from CPU contention on shared machines; show how busy this one was.
    console.log(
      `\n  load average: ${loadavg()
        .map((n) => n.toFixed(2))
        .join(' ')} on ${cpus().length} CPUs`,
    );
  } catch (error) {
    // A benchmark never fails CI; say what went wrong instead.
    console.error('web benchmark could not run:', error);
  } finally {
    process.env.NODE_ENV = previousNodeEnv;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
