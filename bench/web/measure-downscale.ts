import { cpus, loadavg } from 'node:os';
import { pathToFileURL } from 'node:url';
import type { ImageType } from '../../web/src/attachments/attachment-rules.js';
import type { DownscaleBenchResult } from '../../web/src/bench/downscale-bench-entry.js';
import { withBenchPage } from './open-bench-page.js';

/**
 * Times the composer's downscale of generated images in headless Chromium: a 12 MP camera photo
 * (4000 × 3000 JPEG, the figure issue #51 targets) and a 12 MP PNG (a large screenshot), `runs`
 * times each in one page, each run beside the reference path (the whole image decoded) so the
 * ratio holds on a machine others are loading.
 */
/** Runs per image: the first includes the decoder's warm-up, the median is the figure. */
export const RUNS = 21;

export function measureDownscale(
  runs: number,
): Promise<{ readonly label: string; readonly result: DownscaleBenchResult }[]> {
  const cases: { label: string; width: number; height: number; type: ImageType }[] = [
    { label: '12 MP JPEG photo', width: 4000, height: 3000, type: 'image/jpeg' },
    { label: '12 MP PNG screenshot', width: 4000, height: 3000, type: 'image/png' },
  ];
  return withBenchPage('runDownscaleBench', async (page) => {
    const results = [];
    for (const { label, ...options } of cases) {
      const result = await page.evaluate(
        (o) =>
          (
            window as unknown as {
              runDownscaleBench(o: unknown): Promise<DownscaleBenchResult>;
            }
          ).runDownscaleBench(o),
        { ...options, runs },
      );
      results.push({ label, result });
    }
    return results;
  });
}

/** The downscale figures as lines to print: each run, then the medians beside the target. */
export function describeDownscale(
  measured: readonly { readonly label: string; readonly result: DownscaleBenchResult }[],
): string[] {
  const ms = (values: readonly number[]) => values.map((value) => value.toFixed(0)).join(' / ');
  return measured.flatMap(({ label, result }) => {
    const { source, output } = result;
    const median = medianOf(result.runsMs);
    const target =
      label === TARGET_CASE
        ? `target <= ${TARGET_MS} ms ${median <= TARGET_MS ? 'ok' : 'MISSED'}`
        : '(info)';
    // Each run against the reference run beside it: the load both saw was alike.
    const ratio = medianOf(
      result.runsMs.map((value, index) => value / (result.referenceMs[index] ?? Number.NaN)),
    );
    return [
      `  ${label}: ${source.width}×${source.height}, ${kb(source.bytes)} → ${output.width}×${output.height} ${output.type}, ${kb(output.bytes)}`,
      `    downscale runs (ms): ${ms(result.runsMs)}; median ${median.toFixed(0)} ms   ${target}`,
      `    reference, on the page, whole image decoded (ms): ${ms(result.referenceMs)}; median ${medianOf(result.referenceMs).toFixed(0)} ms`,
      `    downscale ÷ reference, run by run: median ${ratio.toFixed(2)}×`,
      `    the browser's whole-image decode alone (ms): ${ms(result.decodeMs)}; median ${medianOf(result.decodeMs).toFixed(0)} ms`,
    ];
  });
}

const TARGET_CASE = '12 MP JPEG photo';
const TARGET_MS = 300;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** `npx tsx bench/web/measure-downscale.ts`: the downscale figures alone. */
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.env.NODE_ENV = 'production';
  for (const line of describeDownscale(await measureDownscale(RUNS))) console.log(line);
  console.log(
    `\n  load average: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')} on ${cpus().length} CPUs`,
  );
}
