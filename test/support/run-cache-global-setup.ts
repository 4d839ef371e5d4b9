import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * A folder for this run only, shared by every test file, for work that is the same for the
     * whole run: the CDK tests' synthesized apps (`test/cdk/synthesize.ts`), the web app build
     * of the browser tests (`test/browser/support/build-web-app.ts`).
     */
    runCacheDir: string | undefined;
  }
}

/**
 * vitest globalSetup: the run's cache folder. Most CDK test files synthesize the default app and
 * every browser test file needs the same `web/dist`; each costs seconds of CPU and is the same
 * for the whole run, so the first file does it and the others reuse it. Removed at the end of
 * the run, so the next run starts from the current sources.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const directory = await mkdtemp(join(tmpdir(), 'vitest-run-cache-'));
  project.provide('runCacheDir', directory);
  return () => rm(directory, { recursive: true, force: true });
}
