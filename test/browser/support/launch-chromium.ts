import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/**
 * Debian's Chromium; playwright-core ships no browser of its own. The headless shell
 * (`chromium-headless-shell`, the old headless mode without the browser's UI layers) when it is
 * installed: the same engine, and two browser files took 0.69× the CPU and wall time of the full
 * browser's headless mode (ADR 0016). Without it the full browser runs the same tests, slower.
 */
export const CHROMIUM_PATH =
  process.env.CHROMIUM_PATH ??
  ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((path) => existsSync(path)) ??
  '/usr/bin/chromium';

/**
 * Headless Chromium without the background traffic (updates, sync, QUIC probes) that would make
 * runs slower and less repeatable in CI containers.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
