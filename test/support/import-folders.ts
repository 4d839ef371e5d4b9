import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { MANIFEST_NAME } from '../../functions/ticket-import/run-import.js';

/**
 * Temporary directories for one test file, each removed after the test that made it. Call it at
 * the file's top level: it registers that file's `afterEach` (a helper module's own top-level
 * hook would run for the first file that imported it only, as files share a process).
 */
export function temporaryDirectoriesOfThisFile(prefix: string): () => string {
  const made: string[] = [];
  afterEach(() => {
    for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
  });
  return () => {
    const directory = mkdtempSync(join(tmpdir(), prefix));
    made.push(directory);
    return directory;
  };
}

/** Every file an import wrote to a folder (not its manifest) with its text. */
export function ticketFilesOf(directory: string): Record<string, string> {
  if (!existsSync(directory)) return {};
  return Object.fromEntries(
    readdirSync(directory)
      .filter((name) => name !== MANIFEST_NAME)
      .sort()
      .map((name) => [name, readFileSync(join(directory, name), 'utf8')]),
  );
}
