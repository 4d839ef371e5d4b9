/// <reference lib="dom" />
// Callbacks passed to page.evaluate/waitForFunction run in the browser.
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { scriptedAnswer } from '../support/scripted-answer.js';
import { registerBrowserHarness, SCREENSHOTS } from './support/browser-harness.js';
import {
  ask,
  assistantBubbles,
  conversationIdOf,
  WAIT_MS,
  waitForAnswer,
} from './support/chat-actions.js';
import { expectAccessible } from './support/expect-accessible.js';

const { open, bedrock } = registerBrowserHarness();

/** A product no sample ticket mentions: only the published ticket can answer for it. */
const PRODUCT = 'Quokka Badge Printer';

/** The draft tool's input, for scripted (slow or failing) drafts. */
const slowDraft = {
  subject: '会議室プリンターの設置依頼',
  category: 'Printer',
  inquiry: '新しい会議室にプリンターを設置してほしいという依頼',
  resolution: ['設置場所と型番を確認する', '総務に搬入日を確認する', 'ドライバーを配布する'],
  restricted: false,
};

/**
 * {@link slowDraft} with a long second step: once the first step is on screen the draft stays in
 * flight for seconds (about 30 fragments, 60 ms apart), so the test sees exactly one step while
 * the form is busy, and its Escape lands while the request is still open, on a loaded machine too.
 */
const streamingDraft = {
  ...slowDraft,
  resolution: [
    slowDraft.resolution[0],
    `${slowDraft.resolution[1]}。${'搬入経路、設置場所の電源とネットワーク口の位置もあわせて確認する。'.repeat(3)}`,
    slowDraft.resolution[2],
  ],
};

describe('knowledge capture in the web app', () => {
  it('saves a solved inquiry as a ticket that the next question retrieves and cites', async () => {
    const { page } = await open('browser-knowledge');
    await ask(page, 'プリンターの設置依頼をしたい');
    expect(await waitForAnswer(page, 1)).toBe('complete');

    await page.getByRole('button', { name: 'ナレッジとして保存' }).click();
    const dialog = page.getByRole('dialog', { name: 'ナレッジとして保存' });
    await dialog.waitFor({ timeout: WAIT_MS });
    const subject = dialog.getByRole('textbox', { name: '件名' });
    // Focus starts in the form, on its first field.
    await page.waitForFunction(() => document.activeElement?.getAttribute('type') === 'text');

    // The model's draft arrives, then the form opens for editing.
    await waitForEditableDraft(page);
    await expect(subject.inputValue()).resolves.not.toBe('');
    await expect(dialog.locator('.knowledge-steps__item').count()).resolves.toBeGreaterThan(0);
    await expectAccessible(page, 'the knowledge draft dialog, editable');

    // Staff make it their own: a distinctive subject, summary and step, and a category.
    await subject.fill(`${PRODUCT} でカードが詰まる`);
    await dialog.getByRole('combobox', { name: 'カテゴリ' }).selectOption('Printer');
    await dialog
      .getByRole('textbox', { name: '問い合わせの要旨' })
      .fill(`${PRODUCT} で社員証カードを印刷すると途中で詰まる`);
    await dialog
      .getByRole('textbox', { name: '手順 1' })
      .fill(`${PRODUCT} の電源を切り、背面トレイから詰まったカードを取り除く`);
    // An empty added step is refused beside the step, before anything is sent.
    await dialog.getByRole('button', { name: '手順を追加' }).click();
    const steps = await dialog.locator('.knowledge-steps__item').count();
    await dialog.getByRole('button', { name: '公開' }).click();
    await dialog.getByText('入力してください').waitFor({ timeout: WAIT_MS });
    await expectAccessible(page, 'the knowledge draft dialog with an empty step refused');
    await dialog.getByRole('button', { name: `手順 ${steps} を削除` }).click();
    await expect(
      dialog.getByRole('checkbox', { name: '限定（回答に表示しない）' }).isChecked(),
    ).resolves.toBe(false);
    await page.screenshot({ path: `${SCREENSHOTS}/knowledge-draft.png` });

    await dialog.getByRole('button', { name: '公開' }).click();
    const badge = page.locator('.knowledge-badge');
    await badge.waitFor({ timeout: WAIT_MS });
    await expect(dialog.count()).resolves.toBe(0);
    const issueId = /ナレッジ #(\d+) として公開済み/.exec((await badge.textContent()) ?? '')?.[1];
    expect(issueId).toMatch(/^\d+$/);
    await expect(page.getByRole('button', { name: 'ナレッジとして保存' }).count()).resolves.toBe(0);

    // A new inquiry about the product: the fresh ticket is retrieved and cited as a card.
    await ask(page, `${PRODUCT} でカードが詰まって印刷できない`);
    expect(await waitForAnswer(page, 2)).toBe('complete');
    const cited = assistantBubbles(page).nth(1).locator(`.ticket-card[data-issue-id="${issueId}"]`);
    await expect(cited.count()).resolves.toBe(1);
    await expect(cited.locator('.ticket-card__subject').textContent()).resolves.toContain(PRODUCT);
    await page.screenshot({ path: `${SCREENSHOTS}/knowledge-cited.png` });

    // After a reload the first inquiry still shows its ticket.
    await page.reload();
    await page.locator('.knowledge-badge').first().waitFor({ timeout: WAIT_MS });
    await expect(page.locator('.knowledge-badge').first().textContent()).resolves.toContain(
      `#${issueId}`,
    );
    await expect(assistantBubbles(page).first().locator('.knowledge-badge').count()).resolves.toBe(
      1,
    );
  }, 120_000);

  it('streams the draft into the fields, and Escape closes the form and aborts the request', async () => {
    const { page } = await open('browser-knowledge-stream');
    await ask(page, 'プリンターの設置依頼をしたい');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    const aborted: string[] = [];
    page.on('requestfailed', (request) => {
      if (request.url().endsWith('/knowledge-draft')) aborted.push(request.url());
    });
    // A slow draft, so the test sees it grow: fragments of 4 characters every 60 ms.
    bedrock().enqueueScript(scriptedAnswer(streamingDraft, { size: 4, delayMs: 60 }));
    const save = page.getByRole('button', { name: 'ナレッジとして保存' });
    await save.click();
    const dialog = page.getByRole('dialog', { name: 'ナレッジとして保存' });
    await dialog.waitFor({ timeout: WAIT_MS });
    await expect(dialog.getByRole('status').textContent()).resolves.toContain('下書きを作成中');

    // Part of the subject is on screen while the draft is still arriving; steps appear one by one.
    await page.waitForFunction(
      () => {
        const panel = document.querySelector('dialog.knowledge-panel');
        const subject = panel?.querySelector<HTMLInputElement>('input[type="text"]');
        return panel?.getAttribute('aria-busy') === 'true' && (subject?.value.length ?? 0) > 0;
      },
      undefined,
      { timeout: WAIT_MS },
    );
    await page.waitForFunction(
      () => {
        const panel = document.querySelector('dialog.knowledge-panel');
        return (
          panel?.getAttribute('aria-busy') === 'true' &&
          panel.querySelectorAll('.knowledge-steps__item').length === 1
        );
      },
      undefined,
      { timeout: WAIT_MS },
    );
    const partial = await dialog.getByRole('textbox', { name: '件名' }).inputValue();
    expect(streamingDraft.subject.startsWith(partial)).toBe(true);
    // Read-only while it streams: staff edit once the draft is complete.
    await expect(
      dialog.getByRole('textbox', { name: '件名' }).getAttribute('readonly'),
    ).resolves.not.toBeNull();
    await page.screenshot({ path: `${SCREENSHOTS}/knowledge-draft-streaming.png` });

    await page.keyboard.press('Escape');
    await expect(dialog.count()).resolves.toBe(0);
    await page.waitForFunction(
      () => document.activeElement?.textContent === 'ナレッジとして保存',
      undefined,
      { timeout: WAIT_MS },
    );
    await expect.poll(() => aborted.length, { timeout: WAIT_MS }).toBe(1);
    await expect(page.locator('.knowledge-badge').count()).resolves.toBe(0);
  }, 90_000);

  it('keeps what arrived when the draft fails midway, and lets staff finish and publish it', async () => {
    const { page } = await open('browser-knowledge-partial');
    await ask(page, 'プリンターの設置依頼をしたい');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    // The model stream breaks after the subject and part of the inquiry.
    const fragments = JSON.stringify(slowDraft).match(/.{1,10}/gsu) ?? [];
    const breakAt = Math.ceil((JSON.stringify(slowDraft).indexOf('"resolution"') - 20) / 10);
    bedrock().enqueueScript({ kind: 'stream', fragments, failAfter: breakAt, delayMs: 0 });
    await page.getByRole('button', { name: 'ナレッジとして保存' }).click();
    const dialog = page.getByRole('dialog', { name: 'ナレッジとして保存' });
    await waitForEditableDraft(page);
    await dialog.getByRole('alert').waitFor({ timeout: WAIT_MS });
    await expect(dialog.getByRole('alert').textContent()).resolves.toContain(
      '下書きを作成できませんでした',
    );
    await expect(dialog.getByRole('textbox', { name: '件名' }).inputValue()).resolves.toBe(
      slowDraft.subject,
    );
    await page.screenshot({ path: `${SCREENSHOTS}/knowledge-draft-partial.png` });

    // Finish it by hand; the form says what is missing first.
    await dialog.getByRole('button', { name: '公開' }).click();
    await dialog.getByText('入力してください').first().waitFor({ timeout: WAIT_MS });
    await dialog.getByRole('combobox', { name: 'カテゴリ' }).selectOption('Printer');
    await dialog.getByRole('textbox', { name: '問い合わせの要旨' }).fill(slowDraft.inquiry);
    await dialog.getByRole('textbox', { name: '手順 1' }).fill('設置場所と型番を確認する');
    await dialog.getByRole('checkbox', { name: '限定（回答に表示しない）' }).check();
    await dialog.getByRole('button', { name: '公開' }).click();
    await page.locator('.knowledge-badge').waitFor({ timeout: WAIT_MS });
    await expect(page.locator('.knowledge-badge').textContent()).resolves.toMatch(
      /ナレッジ #\d+ として公開済み \(限定\)/,
    );
  }, 90_000);
  it('warns the editor about a link outside the allow-list before and after publishing', async () => {
    const { page, dialog } = await openPrinterDraft('browser-knowledge-links');
    const warningName = /許可されたドメインにないリンクがあります/;
    await expect(dialog.getByRole('region', { name: warningName }).count()).resolves.toBe(0);

    // A link to the organisation's own domain is fine; one elsewhere is named as typed.
    await dialog
      .getByRole('textbox', { name: '手順 1' })
      .fill('不明点は https://portal.example.co.jp/help を参照');
    await expect(dialog.getByRole('region', { name: warningName }).count()).resolves.toBe(0);
    await dialog
      .getByRole('textbox', { name: '手順 1' })
      .fill('パスワードは http://evil.example でリセットする');
    const warning = dialog.getByRole('region', { name: warningName });
    await warning.waitFor({ timeout: WAIT_MS });
    await expect(warning.getByRole('listitem').allTextContents()).resolves.toEqual([
      'http://evil.example',
    ]);
    await page.screenshot({ path: `${SCREENSHOTS}/knowledge-draft-link-warning.png` });

    // A warning, not a refusal: it publishes, and the 201's list stays beside the badge.
    await dialog.getByRole('button', { name: '公開' }).click();
    await page.locator('.knowledge-badge').waitFor({ timeout: WAIT_MS });
    const note = page.getByRole('status').filter({ hasText: 'リンクを含めて公開しました' });
    await expect(note.getByRole('listitem').allTextContents()).resolves.toEqual([
      'http://evil.example',
    ]);
  }, 90_000);

  it('says what the publish removed again when the editor typed personal data back', async () => {
    const { page, dialog } = await openPrinterDraft('browser-knowledge-scrub');
    await dialog
      .getByRole('textbox', { name: '手順 1' })
      .fill('設置後は yamada.taro@example.co.jp か 090-1234-5678 に連絡する');
    await dialog.getByRole('button', { name: '公開' }).click();
    await page.locator('.knowledge-badge').waitFor({ timeout: WAIT_MS });
    const note = page.getByRole('status').filter({ hasText: 'もう一度取り除きました' });
    await expect(note.textContent()).resolves.toContain('メール 1 件、電話 1 件');
  }, 90_000);

  it('names the existing ticket when another tab published the inquiry first', async () => {
    const user = 'browser-knowledge-twice';
    const first = await open(user);
    await ask(first.page, 'プリンターの設置依頼をしたい');
    expect(await waitForAnswer(first.page, 1)).toBe('complete');
    const conversationId = conversationIdOf(first.page) ?? '';
    // A second tab on the same conversation, still offering the action.
    const second = await open(user, { path: `/?c=${conversationId}` });
    const staleSave = second.page.getByRole('button', { name: 'ナレッジとして保存' });
    await staleSave.waitFor({ timeout: WAIT_MS });

    await first.page.getByRole('button', { name: 'ナレッジとして保存' }).click();
    await waitForEditableDraft(first.page);
    const firstDialog = first.page.getByRole('dialog', { name: 'ナレッジとして保存' });
    await firstDialog.getByRole('combobox', { name: 'カテゴリ' }).selectOption('Printer');
    await firstDialog.getByRole('button', { name: '公開' }).click();
    await first.page.locator('.knowledge-badge').waitFor({ timeout: WAIT_MS });
    const issueId = /#(\d+)/.exec(
      (await first.page.locator('.knowledge-badge').textContent()) ?? '',
    )?.[1];
    expect(issueId).toMatch(/^\d+$/);

    await staleSave.click();
    const dialog = second.page.getByRole('dialog', { name: 'ナレッジとして保存' });
    await dialog.getByRole('alert').waitFor({ timeout: WAIT_MS });
    await expect(dialog.getByRole('alert').textContent()).resolves.toBe(
      `この問い合わせはすでにナレッジ #${issueId} として公開されています。`,
    );
    // Behind the form the conversation reloaded: the badge replaces the action.
    await second.page.locator('.knowledge-badge').waitFor({ timeout: WAIT_MS });
    await dialog.getByRole('button', { name: 'キャンセル' }).click();
    await expect(dialog.count()).resolves.toBe(0);
    await expect(staleSave.count()).resolves.toBe(0);
  }, 90_000);
});

/** Waits until the draft finished streaming (completely or not) and the form is editable. */
/**
 * A solved printer inquiry of `user` with its knowledge form open and editable, the category
 * chosen: where the tests of what the editor types start.
 */
async function openPrinterDraft(user: string) {
  const { page } = await open(user);
  await ask(page, 'プリンターの設置依頼をしたい');
  expect(await waitForAnswer(page, 1)).toBe('complete');
  await page.getByRole('button', { name: 'ナレッジとして保存' }).click();
  const dialog = page.getByRole('dialog', { name: 'ナレッジとして保存' });
  await waitForEditableDraft(page);
  await dialog.getByRole('combobox', { name: 'カテゴリ' }).selectOption('Printer');
  return { page, dialog };
}

async function waitForEditableDraft(page: Page): Promise<void> {
  await page.waitForFunction(
    () => document.querySelector('dialog.knowledge-panel')?.getAttribute('aria-busy') === 'false',
    undefined,
    { timeout: WAIT_MS },
  );
}
