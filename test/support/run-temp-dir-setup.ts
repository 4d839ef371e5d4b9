import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

/**
 * vitest setupFile of the `cdk` project: temporary files go into the run's cache folder, which
 * the run removes at its end (`run-cache-global-setup.ts`). Every `App` without an `outdir`
 * synthesizes into a new `cdk.out*` folder of the system's temporary folder that nothing removes:
 * about 50 a run, most of them 22 MB (the staged AWS CLI layer of the web deployment), 6.5 GB in
 * /tmp after a day of runs. aws-cdk-lib reads the folder once per process, at its first
 * synthesis, which comes after this: setup files run before the test file is imported.
 */
const runCacheDir = inject('runCacheDir');
if (runCacheDir) {
  const temporary = join(runCacheDir, 'tmp');
  mkdirSync(temporary, { recursive: true });
  process.env.TMPDIR = temporary;
}
