import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const configFile = fileURLToPath(new URL('../../../web/vite.config.ts', import.meta.url));

/**
 * Builds `web/dist` from the current sources, as `npx vite build --config web/vite.config.ts`
 * does, so browser tests never run against a stale bundle.
 */
export async function buildWebApp(): Promise<void> {
  // vitest sets NODE_ENV=test, which would make Vite bundle React's development build.
  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile, mode: 'production', logLevel: 'warn' });
  } finally {
    process.env.NODE_ENV = previous;
  }
}
