import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { Page } from 'playwright-core';
import { build } from 'vite';
import { launchChromium } from '../../test/browser/support/launch-chromium.js';
import { serveDirectory } from './serve-directory.js';

const webRoot = fileURLToPath(new URL('../../web/', import.meta.url));

/**
 * Builds `web/bench.html` (the benchmark entries: the real reducer, components and attachment
 * code, production React) into a temporary directory, opens it in headless Chromium, waits for
 * `ready` (a global the entry defines) and hands the page to `use`; everything is removed after.
 */
export async function withBenchPage<T>(ready: string, use: (page: Page) => Promise<T>): Promise<T> {
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
    await page.waitForFunction((name) => name in window, ready);
    return await use(page);
  } finally {
    await browser.close();
    await server.close();
    await rm(outDir, { recursive: true, force: true });
  }
}
