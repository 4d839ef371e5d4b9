import { cpus, loadavg } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'vite';
import { measureFirstLoad } from './measure-first-load.js';
import { measureStreaming } from './measure-streaming.js';

const configFile = fileURLToPath(new URL('../../web/vite.config.ts', import.meta.url));
const distDir = fileURLToPath(new URL('../../web/dist/', import.meta.url));

const TARGET_FIRST_LOAD_KB = 150;
const TARGET_LATE_OVER_EARLY = 1.5;
const ANSWER_BYTES = 20_000;
const TOKENS_PER_SECOND = 100;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

function row(metric: string, value: string, target: string, ok: boolean): string {
  return `${metric.padEnd(42)} ${value.padStart(12)}   target ${target.padEnd(10)} ${ok ? 'ok' : 'MISSED'}`;
}

/**
 * Web app benchmark: first-load bytes and the main-thread cost per streamed token early vs late
 * in a 20 KB answer. Prints figures beside targets; never fails the build.
 */
export async function main(): Promise<void> {
  // Production React in both builds, whatever the caller's NODE_ENV (vitest sets `test`).
  const previousNodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile, mode: 'production', logLevel: 'warn' });
    const assets = await measureFirstLoad(distDir);
    console.log('First load (gzip, level 9):');
    for (const asset of assets) {
      console.log(
        `  ${asset.file.padEnd(40)} ${(asset.gzipBytes / 1024).toFixed(1).padStart(8)} KB  (raw ${(asset.bytes / 1024).toFixed(1)} KB)`,
      );
    }
    const jsKb =
      assets.filter((a) => a.file.endsWith('.js')).reduce((sum, a) => sum + a.gzipBytes, 0) / 1024;
    const allKb = assets.reduce((sum, a) => sum + a.gzipBytes, 0) / 1024;

    const stream = await measureStreaming({
      bytes: ANSWER_BYTES,
      tokensPerSecond: TOKENS_PER_SECOND,
    });
    const tenth = Math.max(1, Math.floor(stream.perTokenMs.length / 10));
    const early = median(stream.perTokenMs.slice(0, tenth));
    const late = median(stream.perTokenMs.slice(-tenth));
    const ratio = early > 0 ? late / early : Number.POSITIVE_INFINITY;
    const worst = Math.max(...stream.perTokenMs);

    console.log(
      `\nStreaming ${stream.bytes} bytes as ${stream.tokens} tokens at ${TOKENS_PER_SECOND}/s (Chromium, production React):`,
    );
    console.log(
      row(
        'first-load JS gzip',
        `${jsKb.toFixed(1)} KB`,
        `<= ${TARGET_FIRST_LOAD_KB} KB`,
        jsKb <= TARGET_FIRST_LOAD_KB,
      ),
    );
    console.log(row('first-load JS+CSS gzip', `${allKb.toFixed(1)} KB`, '(info)', true));
    console.log(
      row(
        'main thread per token, first 10% (median)',
        `${early.toFixed(2)} ms`,
        '(baseline)',
        true,
      ),
    );
    console.log(
      row('main thread per token, last 10% (median)', `${late.toFixed(2)} ms`, '(info)', true),
    );
    console.log(
      row(
        'late / early',
        `${ratio.toFixed(2)}x`,
        `<= ${TARGET_LATE_OVER_EARLY}x`,
        ratio <= TARGET_LATE_OVER_EARLY,
      ),
    );
    console.log(row('worst single token', `${worst.toFixed(2)} ms`, '(info)', true));
    console.log(
      row(
        'long tasks > 50 ms',
        String(stream.longTasksMs.length),
        '0',
        stream.longTasksMs.length === 0,
      ),
    );
    console.log(row('rendered text length', String(stream.renderedTextLength), '(info)', true));
    // Long tasks mostly come from CPU contention on shared machines; show how busy this one was.
    console.log(
      `\nload average during the run: ${loadavg()
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
