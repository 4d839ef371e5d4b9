import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A folder for this run's synthesized CDK apps, shared by every test file (`test/cdk/synthesize.ts`). */
    cdkSynthCacheDir: string | undefined;
  }
}

/**
 * vitest globalSetup: a folder, for this run only, where `synthesizeServiceDesk` keeps what it
 * synthesized, keyed by its context. Most CDK test files synthesize the default app; it costs
 * several seconds of CPU each time and is the same for the whole run, so the first file
 * synthesizes it and the others read it back. Removed at the end of the run, so a change to
 * `lib/` is always synthesized afresh.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const directory = await mkdtemp(join(tmpdir(), 'cdk-synth-cache-'));
  project.provide('cdkSynthCacheDir', directory);
  return () => rm(directory, { recursive: true, force: true });
}
