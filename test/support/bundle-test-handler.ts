import { basename, extname, resolve } from 'node:path';
import { ensureApiHandlerBundle } from '../../scripts/bundle-api-handler.js';

/**
 * Bundles a test's own handler module (the API handler with an adapter replaced, e.g. a
 * retriever that leaks on purpose) the way the API handler is bundled, so it runs in execution
 * environments under the real runtime client too. Rebuilt only when one of its sources changed.
 */
export async function bundleTestHandler(entry: string): Promise<string> {
  const outfile = resolve('.data/test-build/handlers', `${basename(entry, extname(entry))}.mjs`);
  await ensureApiHandlerBundle({ entry, outfile, target: 'node20', minify: false });
  return outfile;
}
