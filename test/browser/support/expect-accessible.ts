/// <reference lib="dom" />
// Callbacks passed to page.evaluate run in the browser.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults } from 'axe-core';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * axe-core's browser build, read once. It is evaluated through the DevTools protocol rather than
 * added as a `<script>` element: the page runs under CloudFront's CSP (`script-src 'self'`), which
 * would block an inline script — and the harness fails a test on every CSP violation.
 */
const AXE_SOURCE = readFileSync(
  createRequire(import.meta.url).resolve('axe-core/axe.min.js'),
  'utf8',
);

/**
 * Rules axe leaves off by default that the app is held to: `target-size` is WCAG 2.2 AA (2.5.8,
 * 24 px targets), off in axe only because it is new. Left off as axe ships them: the AAA rules
 * (`color-contrast-enhanced`, `identical-links-same-purpose`, `meta-refresh-no-exceptions` — the
 * app's target is AA), the deprecated ones, and the experimental ones, which axe documents as
 * prone to false positives.
 */
const EXTRA_RULES = { 'target-size': { enabled: true } } as const;

/**
 * Every axe-core violation on the page as it is now, one line per rule and element: rule id,
 * impact, the rule's help text, the element's selector and what failed. Runs every rule axe
 * enables by default (WCAG 2.0–2.2 A/AA and best practices) plus {@link EXTRA_RULES}, at every
 * impact; none is disabled.
 */
export async function findAccessibilityViolations(page: Page): Promise<string[]> {
  const loaded = await page.evaluate(() => 'axe' in window);
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(
    (rules) =>
      (window as unknown as { axe: { run(options: object): Promise<AxeResults> } }).axe.run({
        rules,
        resultTypes: ['violations'],
      }),
    EXTRA_RULES,
  );
  return results.violations.flatMap((violation) =>
    violation.nodes.map(
      (node) =>
        `${violation.id} (${violation.impact ?? 'no impact'}): ${violation.help} — ${node.target.join(' ')}\n    ${(node.failureSummary ?? '').replace(/\n/g, '\n    ')}`,
    ),
  );
}

/**
 * Asserts that axe-core finds no violation on the page in the state a test reached; `state`
 * names it in the failure (e.g. 'the e-mail draft in edit mode'), which lists each violation.
 *
 * @example
 * await expectAccessible(page, 'a complete answer with ticket cards');
 */
export async function expectAccessible(page: Page, state: string): Promise<void> {
  expect(await findAccessibilityViolations(page), `axe-core violations in ${state}`).toEqual([]);
}
