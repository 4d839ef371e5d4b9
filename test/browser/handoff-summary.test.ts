/// <reference lib="dom" />
// Callbacks passed to page.evaluate/waitForFunction run in the browser.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { scriptedAnswer } from '../support/scripted-answer.js';
import { registerBrowserHarness, SCREENSHOTS } from './support/browser-harness.js';
import { ask, WAIT_MS, waitForAnswer } from './support/chat-actions.js';
import { expectAccessible } from './support/expect-accessible.js';

const { open, bedrock } = registerBrowserHarness();

/** The action and the dialog share the name (Japanese: the harness's browser language). */
const HANDOFF = 'エスカレーション用サマリー';

/** Waits until the summary has arrived and the fields are editable (the copy button enabled). */
async function waitForEditableSummary(page: Page) {
  await page.waitForFunction(
    () => {
      const dialog = document.querySelector('dialog.handoff-panel');
      return dialog?.getAttribute('aria-busy') === 'false';
    },
    undefined,
    { timeout: WAIT_MS },
  );
}

/** Counts the hand-off requests the page sends. */
function countHandoffRequests(page: Page) {
  const sent: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url().endsWith('/handoff')) sent.push(request.url());
  });
  return sent;
}

describe('the hand-off summary in the web app', () => {
  it('streams a solved inquiry’s summary, edits it, copies it as text and finds it after a reload', async () => {
    const { page, context } = await open('browser-handoff-solved');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(page.url()).origin,
    });
    const requests = countHandoffRequests(page);
    await ask(page, 'Windows 11 のノートPCで自宅からVPNにつながらない');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    await expect(page.locator('.bubble--assistant .ticket-card').count()).resolves.toBeGreaterThan(
      0,
    );
    await expectAccessible(page, 'a complete answer: advice, ticket cards, e-mail draft, to-dos');

    await page.getByRole('button', { name: HANDOFF }).click();
    const dialog = page.getByRole('dialog', { name: HANDOFF });
    await dialog.waitFor({ timeout: WAIT_MS });
    const symptom = dialog.getByRole('textbox', { name: '症状' });
    // Focus starts on the first field; the text streams in while the dialog is busy.
    await page.waitForFunction(() => document.activeElement?.getAttribute('name') === 'symptom');
    await page.waitForFunction(
      () => {
        const dialogElement = document.querySelector('dialog.handoff-panel');
        const field = dialogElement?.querySelector<HTMLTextAreaElement>('textarea[name=symptom]');
        return dialogElement?.getAttribute('aria-busy') === 'true' && (field?.value ?? '') !== '';
      },
      undefined,
      { timeout: WAIT_MS },
    );
    await waitForEditableSummary(page);
    await expectAccessible(page, 'the hand-off summary panel of a solved inquiry');
    await expect(symptom.inputValue()).resolves.toContain('VPNにつながらない');
    await expect(dialog.getByRole('textbox', { name: '環境' }).inputValue()).resolves.toContain(
      'Windows 11',
    );
    await expect(
      dialog.getByRole('textbox', { name: '実施済みの対応' }).inputValue(),
    ).resolves.toMatch(/#\d+: /);
    // The list fields say how they are edited, to screen readers too: the field names the hint.
    const hintId = await dialog
      .getByRole('textbox', { name: '未解決の確認事項' })
      .getAttribute('aria-describedby');
    expect(hintId).toMatch(/\S/);
    await expect(dialog.locator(`[id="${hintId}"]`).textContent()).resolves.toBe('1 行に 1 項目');
    await expect(dialog.getByText('1 行に 1 項目').count()).resolves.toBe(2);

    // Staff make it theirs, by keyboard, then copy it as plain text.
    const environment = dialog.getByRole('textbox', { name: '環境' });
    await environment.focus();
    await page.keyboard.press('End');
    await page.keyboard.type(' / 社外ネットワーク（自宅の光回線）');
    await dialog.getByRole('button', { name: 'テキストとしてコピー' }).click();
    await dialog.getByRole('button', { name: 'コピーしました' }).waitFor({ timeout: WAIT_MS });
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied.startsWith(`${HANDOFF}\n\n症状:\n`)).toBe(true);
    expect(copied).toContain('環境:\n');
    expect(copied).toContain('社外ネットワーク（自宅の光回線）');
    expect(copied).toMatch(/実施済みの対応:\n- /);
    await page.screenshot({ path: `${SCREENSHOTS}/handoff-summary.png` });

    // Escape closes it, and focus goes back to the action.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached', timeout: WAIT_MS });
    await page.waitForFunction((name) => document.activeElement?.textContent === name, HANDOFF);
    expect(requests).toHaveLength(1);

    // After a reload the summary is there as staff left it, without asking the model again.
    await page.reload();
    await waitForAnswer(page, 1);
    await page.getByRole('button', { name: HANDOFF }).click();
    await dialog.waitFor({ timeout: WAIT_MS });
    await expect(environment.inputValue()).resolves.toContain('社外ネットワーク（自宅の光回線）');
    expect(requests).toHaveLength(1);

    // Writing it again asks for a new one, which replaces the edit. The panel is read once that
    // summary's stream has ended: right after the click it can still show the old one, not busy yet.
    const rewritten = page.waitForResponse(
      (response) => response.request().method() === 'POST' && response.url().endsWith('/handoff'),
    );
    await dialog.getByRole('button', { name: '作り直す' }).click();
    await (await rewritten).finished();
    await waitForEditableSummary(page);
    expect(requests).toHaveLength(2);
    await expect(environment.inputValue()).resolves.not.toContain('社外ネットワーク');
  }, 120_000);

  it('lists the links it removed, as the answer does, and copies none of them', async () => {
    const { page, context } = await open('browser-handoff-links');
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(page.url()).origin,
    });
    await ask(page, 'Outlook のパスワードを再設定したい');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    bedrock().enqueueScript(
      scriptedAnswer({
        symptom:
          '[https://support.microsoft.com/ja-jp](https://evil.example/ms) を開くとエラーになる',
        environment: 'Windows 11',
        tried: ['javascript:alert(1) を実行', 'https://support.microsoft.com/ja-jp を確認'],
        told_requester: 'https://support.microsoft.com)https://glued.evil.example/a を案内',
        open_questions: ['原因は？'],
      }),
    );
    await page.getByRole('button', { name: HANDOFF }).click();
    const dialog = page.getByRole('dialog', { name: HANDOFF });
    await dialog.waitFor({ timeout: WAIT_MS });
    await waitForEditableSummary(page);
    await expect(dialog.getByRole('textbox', { name: '症状' }).inputValue()).resolves.toBe(
      '［リンク削除］ を開くとエラーになる',
    );
    await expect(
      dialog.locator('.unverified-links-notice .unverified-link').allTextContents(),
    ).resolves.toEqual([
      'https://evil.example/ms',
      'javascript:alert(1)',
      'https://glued.evil.example/a',
    ]);
    await page.screenshot({ path: `${SCREENSHOTS}/handoff-unverified-links.png` });
    await expectAccessible(page, 'the hand-off summary with its removed links listed');

    // A link staff type in that no page passes on is left out of the copy too.
    const environment = dialog.getByRole('textbox', { name: '環境' });
    await environment.fill('Windows 11 / data:text/html,hi');
    await dialog.getByRole('button', { name: 'テキストとしてコピー' }).click();
    await dialog.getByRole('button', { name: 'コピーしました' }).waitFor({ timeout: WAIT_MS });
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toContain('https://support.microsoft.com/ja-jp');
    expect(copied).not.toMatch(/evil|javascript:|data:/u);
  }, 120_000);

  it('summarizes an unsolved inquiry whose clarification is still open', async () => {
    const { page } = await open('browser-handoff-unsolved');
    await ask(page, 'ログインできない');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    await expectAccessible(page, 'a clarification with its options');
    const question = await page
      .locator('.bubble--assistant .clarification__question')
      .first()
      .textContent();
    // No "Save as knowledge" for an unsolved inquiry, but a hand-off summary.
    await expect(page.getByRole('button', { name: 'ナレッジとして保存' }).count()).resolves.toBe(0);
    await page.getByRole('button', { name: HANDOFF }).click();
    const dialog = page.getByRole('dialog', { name: HANDOFF });
    await dialog.waitFor({ timeout: WAIT_MS });
    await waitForEditableSummary(page);
    await dialog.getByText('この問い合わせは未解決です。').waitFor({ timeout: WAIT_MS });
    await expectAccessible(page, 'the hand-off summary panel of an unsolved inquiry');
    const openQuestions = await dialog
      .getByRole('textbox', { name: '未解決の確認事項' })
      .inputValue();
    const firstQuestion = openQuestions.split('\n')[0] ?? '';
    expect(firstQuestion.length).toBeGreaterThan(0);
    expect(question).toContain(firstQuestion.replace(/[。？?]$/, ''));
    await expect(
      dialog.getByRole('textbox', { name: '実施済みの対応' }).inputValue(),
    ).resolves.toBe('');
    await expect(
      dialog.getByRole('textbox', { name: '依頼者への案内内容' }).inputValue(),
    ).resolves.toBe('依頼者にはまだ何も案内していません。');
    await page.screenshot({ path: `${SCREENSHOTS}/handoff-summary-unsolved.png` });
    await dialog.getByRole('button', { name: '閉じる' }).click();
    await dialog.waitFor({ state: 'detached', timeout: WAIT_MS });
  }, 90_000);
});
