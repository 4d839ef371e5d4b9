import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { build } from 'vite';
import { launchChromium } from '../../test/browser/support/launch-chromium.js';
import type { StreamBenchResult } from '../../web/src/bench/stream-bench-result.js';
import { serveDirectory } from './serve-directory.js';

const webRoot = fileURLToPath(new URL('../../web/', import.meta.url));

/**
 * Builds `web/bench.html` (the real reducer and bubble components, production React) into a
 * temporary directory and streams a long answer through it in headless Chromium.
 */
export async function measureStreaming(options: {
  bytes: number;
  tokensPerSecond: number;
  /** Answers streamed one after another in the same page (shared machines are noisy). */
  runs: number;
}): Promise<StreamBenchResult[]> {
  const outDir = await mkdtemp(join(tmpdir(), 'sda-web-bench-'));
  const browser = await launchChromium();
  const server = await serveDirectory(outDir);
  try {
    await build({
      configFile: false,
      root: webRoot,
      mode: 'production',
      logLevel: 'warn',
      plugins: [react()],
      build: { outDir, emptyOutDir: true, rollupOptions: { input: join(webRoot, 'bench.html') } },
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${server.url}/bench.html`);
    await page.waitForFunction(() => 'runStreamBench' in window);
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
  } finally {
    await browser.close();
    await server.close();
    await rm(outDir, { recursive: true, force: true });
  }
}
