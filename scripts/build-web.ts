import { statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'vite';

export const WEB_DIST = 'web/dist';
/**
 * What `web/dist` is built from: the web app, the wire contract it imports from
 * `functions/contract`, and the offline model ids that mark an offline answer. The list once
 * named `functions/chat` and a `functions/stream` that no longer exists, and missed both, so a
 * contract change left `npm start` serving a stale app; test/scripts/build-web.test.ts now
 * follows the app's imports and fails on any outside `web/` that this list does not cover.
 */
export const WEB_SOURCES = [
  'web/src',
  'web/index.html',
  'web/vite.config.ts',
  'web/public',
  'functions/contract',
  'local/bedrock/local-bedrock-defaults.ts',
];

/** Builds `web/` to `web/dist` with Vite. */
export async function buildWeb(): Promise<void> {
  await build({ configFile: 'web/vite.config.ts', logLevel: 'warn' });
}

/** True when `web/dist` under `root` is missing or older than any of its sources. */
export async function isWebBuildStale(root = '.'): Promise<boolean> {
  const built = modifiedAt(join(root, WEB_DIST, 'index.html'));
  if (built === undefined) return true;
  for (const source of WEB_SOURCES) {
    if ((await newestModification(join(root, source))) > built) return true;
  }
  return false;
}

function modifiedAt(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

async function newestModification(path: string): Promise<number> {
  const own = modifiedAt(path) ?? 0;
  const entries = await readdir(path, { withFileTypes: true }).catch(() => []);
  let newest = own;
  for (const entry of entries) {
    const child = join(path, entry.name);
    newest = Math.max(
      newest,
      entry.isDirectory() ? await newestModification(child) : (modifiedAt(child) ?? 0),
    );
  }
  return newest;
}
