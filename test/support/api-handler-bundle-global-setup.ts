import { resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureApiHandlerBundle } from '../../scripts/bundle-api-handler.js';
import { TEST_API_HANDLER_ENTRY } from './test-timings.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The bundled test API handler every test stack's execution environments load. */
    apiHandlerBundle: string;
  }
}

/**
 * vitest globalSetup: bundles the API handler once per run (and only when a source it was built
 * from changed since the last run), so each test stack starts processes, not esbuild.
 */
export default async function setup(project: TestProject): Promise<void> {
  const outfile = resolve('.data/test-build/api/test-api-handler.mjs');
  await ensureApiHandlerBundle({
    entry: TEST_API_HANDLER_ENTRY,
    outfile,
    target: 'node20',
    minify: false,
  });
  project.provide('apiHandlerBundle', outfile);
}
