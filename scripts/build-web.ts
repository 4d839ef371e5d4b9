import { statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { build } from 'vite';

export const WEB_DIST = 'web/dist';
/** The web app imports the shared event and answer schemas, so their changes rebuild it too. */
const WEB_SOURCES = [
  'web/src',
  'web/index.html',
  'web/vite.config.ts',
  'web/public',
  'functions/stream',
  'functions/chat',
];

/** Builds `web/` to `web/dist` with Vite. */
export async function buildWeb(): Promise<void> {
  await build({ configFile: 'web/vite.config.ts', logLevel: 'warn' });
}

/** True when `web/dist` is missing or older than any of its sources. */
export async function isWebBuildStale(): Promise<boolean> {
  const built = modifiedAt(join(WEB_DIST, 'index.html'));
  if (built === undefined) return true;
  for (const source of WEB_SOURCES) {
    if ((await newestModification(source)) > built) return true;
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
