import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';
import { expect, inject, vi } from 'vitest';

const configFile = fileURLToPath(new URL('../../../web/vite.config.ts', import.meta.url));

/**
 * Builds `web/dist` from the current sources, as `npx vite build --config web/vite.config.ts`
 * does, so browser tests never run against a stale bundle — once per test run: the first browser
 * file builds, the others (in this worker or another) wait for that build and reuse it, since
 * the sources cannot change during a run (`test/support/run-cache-global-setup.ts`).
 */
export async function buildWebApp(): Promise<void> {
  const directory = inject('runCacheDir');
  if (!directory) return buildNow();
  const outcome = join(directory, 'web-app-build');
  try {
    // Created by exactly one file of the run: that one builds.
    closeSync(openSync(join(directory, 'web-app-build.lock'), 'wx'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    await vi.waitFor(() => expect(existsSync(outcome)).toBe(true), {
      timeout: 60_000,
      interval: 100,
    });
    const failure = readFileSync(outcome, 'utf8');
    if (failure) throw new Error(`the run's web app build failed: ${failure}`);
    return;
  }
  try {
    await buildNow();
    writeFileSync(outcome, '');
  } catch (error) {
    writeFileSync(outcome, (error as Error).message || String(error));
    throw error;
  }
}

async function buildNow(): Promise<void> {
  // vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile, mode: 'production', logLevel: 'warn' });
  } finally {
    process.env.NODE_ENV = previous;
  }
}
