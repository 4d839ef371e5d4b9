/// <reference lib="dom" />
// Callbacks passed to page.evaluate/waitForFunction run in the browser.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Locator, type Page } from 'playwright-core';
import { assertJavaAvailable } from '../local/dynamodb-local.js';
import { type LocalStack, startLocalStack } from '../local/start-local-stack.js';
import { ask, assistantBubbles, waitForAnswer } from '../test/browser/support/chat-actions.js';
import { buildWeb, isWebBuildStale } from './build-web.js';

/**
 * `npm run docs:screenshots`: the screenshots in README.md and docs/, taken from real use of the
 * local stack — the stack `npm start` runs, on a temporary DATA_DIR, with the offline responder.
 * It asks a few questions in Japanese, marks a solution, publishes it as knowledge, refines an
 * e-mail draft twice, rates an answer 👎, opens a hand-off summary and, as a lead, the insights
 * page, and writes one PNG per state to docs/screenshots/ (1280×800, a viewport each, so each
 * stays small). Not part of `npm test`: a picture is checked by a person, not by an assertion.
 *
 * The names differ from the browser tests' screenshots (`UPDATE_SCREENSHOTS=1`), so a test run
 * never replaces a documented state with a test's.
 *
 * Needs Java (DynamoDB Local), Debian's Chromium (`CHROMIUM_PATH`, default /usr/bin/chromium) and
 * a Japanese font (Debian: fonts-noto-cjk), or the Japanese text shows as boxes.
 */
// The SDK warns on Node 20 that releases after January 2027 need Node 22 (as `npm start` says).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const OUTPUT_DIR = 'docs/screenshots';
const VIEWPORT = { width: 1280, height: 800 } as const;
const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The offline responder runs unpaced here; this covers a loaded machine's slowest step. */
const WAIT_MS = 60_000;
/** One dev user (every local user is a lead while SERVICE_DESK_LEADS is unset). */
const DEV_USER = 'yamada';

const log = (message: string) => console.log(`[docs:screenshots] ${message}`);

async function main(): Promise<void> {
  assertJavaAvailable();
  warnAboutMissingFonts();
  if (await isWebBuildStale()) {
    log('building the web app…');
    await buildWeb();
  }
  const dataDir = await mkdtemp(join(tmpdir(), 'sda-docs-screenshots-'));
  let stack: LocalStack | undefined;
  let browser: Browser | undefined;
  try {
    log(`starting the local stack on ${dataDir}…`);
    stack = await startLocalStack({
      port: 0,
      dataDir: join(dataDir, 'dynamodb'),
      s3Dir: join(dataDir, 's3'),
      responderPacing: { minMs: 0, maxMs: 0 },
      bedrockOptions: { indexCacheDirectory: join(dataDir, 'local-index') },
      functionEnvironment: {
        LOG_LEVEL: 'SILENT',
        METRICS: 'false',
        // Every retrieval counts as weak, as in test/browser/insights.test.ts: the local keyword
        // index scales each inquiry's best match close to 1, so at the deployed threshold (0.4)
        // no local inquiry would be a gap with its example, only the ones rated 👎.
        INSIGHTS_GAP_SCORE: '1',
      },
      log: () => {},
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    });
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await takeScreenshots(browser, stack.url);
  } finally {
    await browser?.close();
    await stack?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function takeScreenshots(browser: Browser, baseUrl: string): Promise<void> {
  const context = await browser.newContext({ viewport: VIEWPORT, locale: 'ja-JP' });
  await context.addInitScript((user) => localStorage.setItem('sda.devUser', user), DEV_USER);
  const page = await context.newPage();
  await page.goto(baseUrl);
  await composer(page).waitFor({ timeout: WAIT_MS });

  // 1. A solved inquiry: the answer with its ticket cards, rated 👍, the first card the solution.
  const printer = await answered(page, '3階の複合機で印刷できるようにプリンターを追加したい', 1);
  await printer.getByRole('button', { name: '役に立った', exact: true }).click();
  await printer.getByText('評価を保存しました').waitFor({ timeout: WAIT_MS });
  const card = printer.locator('.ticket-card').first();
  await card.getByRole('button', { name: /この件で解決/ }).click();
  await card.locator('.solved-toggle[aria-pressed="true"]').waitFor({ timeout: WAIT_MS });
  await page.mouse.move(0, 0);
  await card.evaluate((element) => element.scrollIntoView({ block: 'center' }));
  await shoot(
    page,
    'chat-answer',
    'the answer: advice and similar-ticket cards, one marked as the solution',
  );

  // 2. Its e-mail draft refined twice (短く, then 丁寧に), three versions to browse with ‹ ›.
  const draft = printer.getByRole('region', { name: '依頼者へのメール下書き' });
  await draft.getByRole('button', { name: '短く' }).click();
  await counter(draft, '2/2');
  await draft.getByRole('button', { name: '丁寧に' }).click();
  await counter(draft, '3/3');
  await page.mouse.move(0, 0);
  await draft.evaluate((element) => element.scrollIntoView({ block: 'center' }));
  await shoot(page, 'mail-draft-refined', 'the e-mail draft after two one-click refinements');

  // 3. The solved inquiry published as knowledge (the insights page counts it).
  await printer.getByRole('button', { name: 'ナレッジとして保存' }).click();
  const knowledge = page.getByRole('dialog', { name: 'ナレッジとして保存' });
  await page.waitForFunction(
    () => document.querySelector('dialog.knowledge-panel')?.getAttribute('aria-busy') === 'false',
    undefined,
    { timeout: WAIT_MS },
  );
  await knowledge.getByRole('button', { name: '公開' }).click();
  await printer.locator('.knowledge-badge').waitFor({ timeout: WAIT_MS });

  // 4. An inquiry whose tickets did not help: rated 👎 (a knowledge gap on the insights page).
  await page.getByRole('button', { name: '新しい会話' }).click();
  const projector = await answered(page, '会議室のプロジェクターにノートPCの画面が映らない', 1);
  await projector.getByRole('button', { name: '役に立たなかった', exact: true }).click();
  await projector.getByRole('radio', { name: '関係のないチケット' }).check();
  await projector.getByRole('button', { name: '評価を送信' }).click();
  await projector
    .locator('.feedback-button[aria-expanded][aria-pressed="true"]')
    .waitFor({ timeout: WAIT_MS });

  // 5. An inquiry for second line: its hand-off summary, streamed from that inquiry alone.
  await page.getByRole('button', { name: '新しい会話' }).click();
  await answered(page, 'Windows 11 のノートPCで自宅からVPNにつながらない。社内では問題ない', 1);
  await page.getByRole('button', { name: 'エスカレーション用サマリー' }).click();
  await page.waitForFunction(
    () => document.querySelector('dialog.handoff-panel')?.getAttribute('aria-busy') === 'false',
    undefined,
    { timeout: WAIT_MS },
  );
  await page.mouse.move(0, 0);
  await shoot(page, 'handoff-summary-panel', 'the hand-off summary for escalation');
  await page.keyboard.press('Escape');

  // 6. The insights page, as a lead, drawn from what happened above.
  await page.getByRole('link', { name: 'インサイト' }).click();
  await page.getByRole('region', { name: '利用状況' }).waitFor({ timeout: WAIT_MS });
  await page.getByRole('region', { name: 'ナレッジの不足' }).waitFor({ timeout: WAIT_MS });
  await page.mouse.move(0, 0);
  await shoot(page, 'insights-page', 'the insights page: activity');
  await page
    .getByRole('region', { name: 'ナレッジの不足' })
    .evaluate((element) => element.scrollIntoView());
  await shoot(page, 'insights-gaps', 'the insights page: knowledge gaps and what helped');
  await context.close();
}

/**
 * Says which fonts are missing for a readable picture — Japanese text, and 👍/👎 (shown as boxes
 * without a colour-emoji font) — where fontconfig can tell (Linux); the screenshots are still
 * taken, so the run shows what the missing font costs.
 */
function warnAboutMissingFonts(): void {
  const fontsFor = (pattern: string): string | undefined => {
    try {
      return execFileSync('fc-list', [pattern], { encoding: 'utf8' }).trim();
    } catch {
      return undefined; // no fontconfig (macOS, Windows): nothing to tell
    }
  };
  if (fontsFor(':lang=ja') === '')
    log('warning: no Japanese font (Debian: apt-get install fonts-noto-cjk)');
  if (fontsFor(':charset=1f44d') === '')
    log('warning: no font has 👍/👎 (Debian: apt-get install fonts-noto-color-emoji)');
}

function composer(page: Page): Locator {
  return page.getByRole('textbox', { name: '問い合わせ内容' });
}

/** Sends an inquiry as staff do (Enter) and returns the answer's bubble once it is complete. */
async function answered(page: Page, text: string, count: number): Promise<Locator> {
  await ask(page, text);
  const status = await waitForAnswer(page, count);
  if (status !== 'complete') throw new Error(`the answer to 「${text}」 ended ${status}`);
  return assistantBubbles(page).nth(count - 1);
}

/** Waits until the e-mail draft shows version `text` (e.g. `2/2`). */
async function counter(draft: Locator, text: string): Promise<void> {
  await draft
    .locator('.mail-draft__counter', { hasText: new RegExp(`^${text}$`) })
    .waitFor({ timeout: WAIT_MS });
}

async function shoot(page: Page, name: string, what: string): Promise<void> {
  // Fonts and the last layout settle before the picture (a stream's final render, a scroll).
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
  const path = join(OUTPUT_DIR, `${name}.png`);
  await page.screenshot({ path, animations: 'disabled', caret: 'hide' });
  log(`${path}: ${what}`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(
      `docs:screenshots failed: ${error instanceof Error ? (error.stack ?? error.message) : error}`,
    );
    process.exit(1);
  },
);
