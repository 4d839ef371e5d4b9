/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { registerBrowserHarness, SCREENSHOTS } from './support/browser-harness.js';
import { ask, conversationIdOf, WAIT_MS, waitForAnswer } from './support/chat-actions.js';

const { open, storedConversation } = registerBrowserHarness();

interface StoredVersionTurn {
  seq: number;
  role: string;
  text: string;
  supersedes?: number;
}

const printer = 'プリンターの設置依頼をしたい';
const toner = 'プリンターのトナーを交換したい';

/** Waits until the latest question shows `label` ("2/2") in its version pager. */
async function waitForVersion(page: Page, label: string): Promise<void> {
  await page.waitForFunction(
    (expected) =>
      Array.from(document.querySelectorAll('.version-pager__label')).some(
        (element) => element.textContent === expected,
      ),
    label,
    { timeout: WAIT_MS },
  );
}

const userTexts = (page: Page) => page.locator('.bubble--user .bubble__text').allTextContents();

describe('regenerate and edit in the web app', () => {
  it('regenerates the answer, edits the question, browses the versions, and keeps them after a reload', async () => {
    const user = 'browser-regenerate';
    const { page } = await open(user);
    await ask(page, printer);
    expect(await waitForAnswer(page, 1)).toBe('complete');

    // Regenerate: a second version of the same question, shown instead of the first.
    await page.getByRole('button', { name: '再生成', exact: true }).click();
    await waitForVersion(page, '2/2');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    await expect(page.locator('.bubble--assistant').count()).resolves.toBe(1);
    await expect(userTexts(page)).resolves.toEqual([printer]);

    // Edit: a third version with the new text.
    await page.getByRole('button', { name: '編集', exact: true }).click();
    const editor = page.getByRole('textbox', { name: '質問を編集' });
    await expect(editor.inputValue()).resolves.toBe(printer);
    await editor.fill(toner);
    await page.screenshot({ path: `${SCREENSHOTS}/edit-question.png` });
    await page.locator('.user-edit').getByRole('button', { name: '送信', exact: true }).click();
    await waitForVersion(page, '3/3');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    await expect(userTexts(page)).resolves.toEqual([toner]);

    // Browse back: the older question with its own answer; no edit or regenerate there.
    await page.getByRole('button', { name: '前の版' }).click();
    await waitForVersion(page, '2/3');
    await expect(userTexts(page)).resolves.toEqual([printer]);
    await expect(page.locator('.bubble--assistant').count()).resolves.toBe(1);
    await expect(page.getByRole('button', { name: '編集', exact: true }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: '再生成', exact: true }).count()).resolves.toBe(
      0,
    );
    await page.getByRole('button', { name: '前の版' }).click();
    await waitForVersion(page, '1/3');
    await expect(page.getByRole('button', { name: '前の版' }).isDisabled()).resolves.toBe(true);
    await page.getByRole('button', { name: '次の版' }).click();
    await page.getByRole('button', { name: '次の版' }).click();
    await waitForVersion(page, '3/3');
    await expect(userTexts(page)).resolves.toEqual([toner]);

    // Stored append-only: three versions, each pointing at the one it replaced.
    const conversationId = conversationIdOf(page) ?? '';
    const stored = await storedConversation(user, conversationId);
    const turns = stored.body.turns as unknown as StoredVersionTurn[];
    expect(turns.map(({ seq, role, supersedes }) => ({ seq, role, supersedes }))).toEqual([
      { seq: 1, role: 'user', supersedes: undefined },
      { seq: 2, role: 'assistant', supersedes: undefined },
      { seq: 3, role: 'user', supersedes: 1 },
      { seq: 4, role: 'assistant', supersedes: undefined },
      { seq: 5, role: 'user', supersedes: 3 },
      { seq: 6, role: 'assistant', supersedes: undefined },
    ]);
    expect(turns[4]?.text).toBe(toner);

    // After a reload: the newest version, and the older ones still a click away.
    await page.reload();
    await waitForVersion(page, '3/3');
    await expect(userTexts(page)).resolves.toEqual([toner]);
    await page.getByRole('button', { name: '前の版' }).click();
    await waitForVersion(page, '2/3');
    await expect(userTexts(page)).resolves.toEqual([printer]);
    await page.screenshot({ path: `${SCREENSHOTS}/question-versions.png` });

    // The newest version can be edited again after the reload (its seq came from the history).
    await page.getByRole('button', { name: '次の版' }).click();
    await waitForVersion(page, '3/3');
    await expect(page.getByRole('button', { name: '編集', exact: true }).count()).resolves.toBe(1);
  }, 120_000);

  it('edits the latest question only: earlier questions have no edit', async () => {
    const { page } = await open('browser-edit-latest');
    await ask(page, printer);
    expect(await waitForAnswer(page, 1)).toBe('complete');
    await ask(page, 'VPNに接続できない');
    expect(await waitForAnswer(page, 2)).toBe('complete');
    const edits = page.locator('.bubble--user').getByRole('button', { name: '編集', exact: true });
    await expect(edits.count()).resolves.toBe(1);
    await expect(
      page
        .locator('.bubble--user')
        .nth(1)
        .getByRole('button', { name: '編集', exact: true })
        .count(),
    ).resolves.toBe(1);
    await expect(page.getByRole('button', { name: '再生成', exact: true }).count()).resolves.toBe(
      1,
    );
  }, 90_000);
});
