/// <reference lib="dom" />
// Callbacks passed to page.evaluate/waitForFunction run in the browser.
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { scriptedAnswer, streamHold } from '../support/scripted-answer.js';
import { registerBrowserHarness, SCREENSHOTS } from './support/browser-harness.js';
import {
  ask,
  assistantBubbles,
  conversationIdOf,
  WAIT_MS,
  waitForAnswer,
} from './support/chat-actions.js';
import { expectAccessible } from './support/expect-accessible.js';

const { open, bedrock, storedConversation } = registerBrowserHarness();

/** The numbered refinement, streamed 4 characters a fragment and held mid-stream (`pauseAfter`). */
const numberedDraft =
  'お問い合わせありがとうございます。\n1. プリンターの電源を入れ直してください。\n2. 印刷キューから古いジョブを削除してください。\n3. もう一度印刷してください。\nよろしくお願いいたします。';

/**
 * The answer, scripted and unpaced: the test is about its draft, and a paced offline answer takes
 * longer than a wait on a loaded machine allows.
 */
const answerWithDraft = (mailDraft: string) =>
  scriptedAnswer(
    {
      response_type: 'results',
      general_advice: '印刷キューを確認し、プリンターを再起動するよう案内してください。',
      results: [],
      mail_draft: mailDraft,
      todo_actions: ['依頼者へ回答メールを送付する'],
    },
    { size: 40 },
  );

const ORIGINAL_DRAFT =
  'お問い合わせありがとうございます。ITサービスデスクです。\nプリンターの電源を入れ直し、印刷キューに残っている古いジョブを削除してから、もう一度印刷をお試しください。\n解決しない場合は、このメールにご返信ください。\nよろしくお願いいたします。';

interface StoredAnswer {
  kind: string;
  mailDraftVersions?: { origin: string; text: string }[];
  mailDraftCopies?: number;
  mailDraftMailOpens?: number;
}

const draftOf = (page: Page): Locator =>
  assistantBubbles(page).first().getByRole('region', { name: '依頼者へのメール下書き' });

/**
 * Presses a control with the keyboard only: focus, then Enter — once the control is enabled, as
 * a person would wait for it. A refinement's version counter moves before its stream has ended
 * and the buttons are enabled again; an Enter on a still-disabled button did nothing (seen on a
 * loaded machine). A trial click checks actionability without clicking.
 */
async function pressWithKeyboard(control: Locator): Promise<void> {
  await control.click({ trial: true, timeout: WAIT_MS });
  await control.focus();
  await control.press('Enter');
}

async function waitForCounter(draft: Locator, text: string): Promise<void> {
  await draft
    .locator('.mail-draft__counter', { hasText: new RegExp(`^${text}$`) })
    .waitFor({ timeout: WAIT_MS });
}

describe('the e-mail draft in the web app', () => {
  it('is edited, refined twice, browsed, kept across a reload, copied and opened in the mail client — by keyboard', async () => {
    const user = 'browser-mail-draft';
    const { page } = await open(user);
    bedrock().enqueueScript(answerWithDraft(ORIGINAL_DRAFT));
    await ask(page, 'プリンターで印刷できません。トレイに紙はあります');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    const draft = draftOf(page);
    const body = draft.locator('.mail-draft__body');
    const original = (await body.textContent()) ?? '';
    expect(original).toBe(ORIGINAL_DRAFT);
    await expectAccessible(page, 'an answer with its e-mail draft in view mode');

    // Edit in place: the labelled editor opens focused, Esc cancels, Save stores version 2.
    const edit = draft.getByRole('button', { name: 'メール下書きを編集' });
    await pressWithKeyboard(edit);
    const editor = draft.getByRole('textbox', { name: 'メール下書きを編集（Esc でキャンセル）' });
    await editor.waitFor({ timeout: WAIT_MS });
    await expect(editor.evaluate((element) => element === document.activeElement)).resolves.toBe(
      true,
    );
    await expectAccessible(page, 'the e-mail draft in edit mode');
    await page.keyboard.press('Escape');
    await expect(editor.count()).resolves.toBe(0);
    await expect(edit.evaluate((element) => element === document.activeElement)).resolves.toBe(
      true,
    );
    await page.keyboard.press('Enter');
    await editor.waitFor({ timeout: WAIT_MS });
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n追記: 再起動もお試しください。');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await waitForCounter(draft, '2/2');
    await expect(body.textContent()).resolves.toBe(`${original}\n追記: 再起動もお試しください。`);

    // Refine: 短く (the offline responder), then 手順を番号付きで streamed into version 4.
    await pressWithKeyboard(draft.getByRole('button', { name: '短く' }));
    await waitForCounter(draft, '3/3');
    await expect(draft.locator('.mail-draft__origin').textContent()).resolves.toBe('短く');
    const shorter = (await body.textContent()) ?? '';
    expect(shorter.length).toBeGreaterThan(0);
    expect(shorter.length).toBeLessThan(original.length);

    // Held after 8 fragments until the test has seen the mid-stream state: a timed window
    // (fragments 60 ms apart) was missed when the machine was loaded.
    const hold = streamHold(8);
    bedrock().enqueueScript(
      scriptedAnswer({ mail_draft: numberedDraft }, { size: 4, pauseAfter: [hold.pause] }),
    );
    await pressWithKeyboard(draft.getByRole('button', { name: '手順を番号付きで' }));
    try {
      // Mid-stream: part of the text is in the busy body while the buttons wait.
      await page.waitForFunction(
        () => {
          const streaming = document.querySelector('.mail-draft__body[aria-busy="true"]');
          const length = streaming?.textContent?.length ?? 0;
          let shortenDisabled = false;
          document
            .querySelectorAll<HTMLButtonElement>('.mail-draft__refine button')
            .forEach((button) => {
              if (button.textContent?.trim() === '短く') shortenDisabled = button.disabled;
            });
          return length > 0 && shortenDisabled;
        },
        undefined,
        { timeout: WAIT_MS },
      );
      const partial =
        (await draft.locator('.mail-draft__body[aria-busy="true"]').textContent()) ?? '';
      expect(numberedDraft.startsWith(partial)).toBe(true);
      expect(partial.length).toBeLessThan(numberedDraft.length);
    } finally {
      hold.release();
    }
    await waitForCounter(draft, '4/4');
    await expect(body.textContent()).resolves.toBe(numberedDraft);
    await page.screenshot({ path: `${SCREENSHOTS}/mail-draft-versions.png` });
    await expectAccessible(page, 'the e-mail draft at its latest refined version (4/4)');

    // Browse with ‹ ›: the original is version 1, unchanged.
    const previous = draft.getByRole('button', { name: 'メール下書きの前の版' });
    for (const counter of ['3/4', '2/4', '1/4']) {
      await pressWithKeyboard(previous);
      await waitForCounter(draft, counter);
    }
    await expect(body.textContent()).resolves.toBe(original);
    await expect(previous.isDisabled()).resolves.toBe(true);
    await expectAccessible(page, 'the e-mail draft browsed back to its original (1/4)');
    await expect(draft.locator('.mail-draft__origin').textContent()).resolves.toBe('元の下書き');
    await pressWithKeyboard(draft.getByRole('button', { name: 'メール下書きの次の版' }));
    await waitForCounter(draft, '2/4');

    // Reload: every version is still there, the latest shown.
    const conversationId = conversationIdOf(page) as string;
    await page.reload();
    await waitForAnswer(page, 1);
    await waitForCounter(draftOf(page), '4/4');
    await expect(draftOf(page).locator('.mail-draft__body').textContent()).resolves.toBe(
      numberedDraft,
    );
    const stored = await storedConversation(user, conversationId);
    const answer = (stored.body.turns as unknown as StoredAnswer[]).find(
      (turn) => turn.kind === 'answer',
    );
    expect(answer?.mailDraftVersions?.map((version) => version.origin)).toEqual([
      'edit',
      'shorter',
      'numbered_steps',
    ]);

    // Copy as plain text (the clipboard recorded in the page), counted on the answer.
    await page.evaluate(() => {
      Object.defineProperty(navigator, 'clipboard', {
        configurable: true,
        value: {
          writeText: async (text: string) => {
            (window as unknown as { copiedText: string }).copiedText = text;
          },
        },
      });
    });
    await pressWithKeyboard(draftOf(page).getByRole('button', { name: 'コピー' }));
    await draftOf(page)
      .getByRole('button', { name: 'コピーしました' })
      .waitFor({ timeout: WAIT_MS });
    await expect(
      page.evaluate(() => (window as unknown as { copiedText?: string }).copiedText),
    ).resolves.toBe(numberedDraft);

    // Open in mail: the mailto: navigation is intercepted and read back.
    await page.evaluate(() => {
      document.addEventListener(
        'click',
        (event) => {
          const link = (event.target as Element).closest('a[href^="mailto:"]');
          if (!link) return;
          event.preventDefault();
          (window as unknown as { mailto: string }).mailto = link.getAttribute('href') ?? '';
        },
        true,
      );
    });
    await pressWithKeyboard(draftOf(page).getByRole('link', { name: 'メールで開く' }));
    await page.waitForFunction(() => Boolean((window as unknown as { mailto?: string }).mailto));
    const mailto = new URL(
      (await page.evaluate(() => (window as unknown as { mailto: string }).mailto)) ?? '',
    );
    expect(mailto.protocol).toBe('mailto:');
    expect(mailto.searchParams.get('subject')).toMatch(/^Re: .*プリンター/);
    expect(mailto.searchParams.get('body')).toBe(numberedDraft.replace(/\n/g, '\r\n'));

    await expect
      .poll(
        async () => {
          const after = await storedConversation(user, conversationId);
          const turn = (after.body.turns as unknown as StoredAnswer[]).find(
            (candidate) => candidate.kind === 'answer',
          );
          return [turn?.mailDraftCopies, turn?.mailDraftMailOpens];
        },
        { timeout: WAIT_MS },
      )
      .toEqual([1, 1]);
  }, 180_000);

  it('flags links that may not go on in the draft and its versions, and leaves them out of the copy and the mailto: body', async () => {
    const user = 'browser-mail-draft-links';
    const { page } = await open(user);
    const hostile =
      'お問い合わせありがとうございます。\n手順は [https://support.microsoft.com/ja-jp](https://evil.example/ms) をご覧ください。\n' +
      '補足: https://support.microsoft.com|https://pipe.evil.example/b と javascript:alert(1)\n' +
      '公式: https://support.microsoft.com/ja-jp\nよろしくお願いいたします。';
    bedrock().enqueueScript(answerWithDraft(hostile));
    await ask(page, 'パスワードを再設定したい');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    const bubble = assistantBubbles(page).first();
    const draft = draftOf(page);
    const body = draft.locator('.mail-draft__body');
    const listedUnder = async (scope: Locator) =>
      scope.locator('.unverified-links-notice .unverified-link').allTextContents();
    const expected = [
      'https://evil.example/ms',
      'https://pipe.evil.example/b',
      'javascript:alert(1)',
    ];

    // The original: placeholders in the text, the links listed (as marked text) with the answer.
    await expect(body.textContent()).resolves.not.toMatch(/evil|javascript:/u);
    await expect(body.textContent()).resolves.toContain('［リンク削除］');
    await expect(listedUnder(bubble)).resolves.toEqual(expected);
    await expect(bubble.locator('a[href*="evil"], a[href^="javascript"]').count()).resolves.toBe(0);

    // An edit with the same links: removed on the server, listed under the version in the draft.
    await draft.getByRole('button', { name: 'メール下書きを編集' }).click();
    await draft
      .getByRole('textbox', { name: 'メール下書きを編集（Esc でキャンセル）' })
      .fill(hostile);
    await draft.getByRole('button', { name: '新しい版として保存' }).click();
    await waitForCounter(draft, '2/2');
    await expect(body.textContent()).resolves.not.toMatch(/evil|javascript:/u);
    await expect(listedUnder(draft)).resolves.toEqual(expected);
    await expect(
      draft.locator('.unverified-links-notice .unverified-link').first().getAttribute('title'),
    ).resolves.toContain('許可されていないリンク');
    await page.screenshot({ path: `${SCREENSHOTS}/mail-draft-unverified-links.png` });
    await expectAccessible(page, 'a mail draft version with its removed links listed');

    // Copy and 「メールで開く」 carry the allowed link and none of the flagged ones.
    await page.evaluate(() => {
      Object.defineProperty(navigator, 'clipboard', {
        configurable: true,
        value: {
          writeText: async (text: string) => {
            (window as unknown as { copiedText: string }).copiedText = text;
          },
        },
      });
    });
    await draft.getByRole('button', { name: 'コピー' }).click();
    const copied = await page.evaluate(
      () => (window as unknown as { copiedText?: string }).copiedText,
    );
    expect(copied).toContain('https://support.microsoft.com/ja-jp');
    expect(copied).not.toMatch(/evil|javascript:/u);
    const href =
      (await draft.getByRole('link', { name: 'メールで開く' }).getAttribute('href')) ?? '';
    const mailBody = new URL(href).searchParams.get('body') ?? '';
    expect(mailBody).toContain('https://support.microsoft.com/ja-jp');
    expect(mailBody).not.toMatch(/evil|javascript:/u);
  }, 120_000);

  it('says to paste instead when the draft is too long for a mailto: link', async () => {
    const { page } = await open('browser-mail-draft-long');
    bedrock().enqueueScript(answerWithDraft(ORIGINAL_DRAFT));
    await ask(page, 'Teamsの会議に入れません');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    const draft = draftOf(page);
    await draft.getByRole('button', { name: 'メール下書きを編集' }).click();
    const editor = draft.getByRole('textbox', { name: 'メール下書きを編集（Esc でキャンセル）' });
    await editor.fill('会議のリンクを開き直してください。'.repeat(60));
    await draft.getByRole('button', { name: '新しい版として保存' }).click();
    await waitForCounter(draft, '2/2');
    await expect(draft.getByRole('link', { name: 'メールで開く' }).count()).resolves.toBe(0);
    await draft.getByRole('button', { name: 'メールで開く' }).click();
    await draft
      .getByText('「コピー」してメールに貼り付けてください', { exact: false })
      .waitFor({ timeout: WAIT_MS });
  }, 120_000);
});
