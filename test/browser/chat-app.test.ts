/// <reference lib="dom" />
// Callbacks passed to page.evaluate/waitForFunction run in the browser.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Answer } from '../../functions/contract/answer.js';
import { scriptedAnswer, streamHold } from '../support/scripted-answer.js';
import { splitIntoFragments } from '../support/split-into-fragments.js';
import { registerBrowserHarness, SCREENSHOTS } from './support/browser-harness.js';
import {
  ask,
  assistantBubbles,
  conversationIdOf,
  WAIT_MS,
  waitForAdvice,
  waitForAnswer,
} from './support/chat-actions.js';
import { expectAccessible } from './support/expect-accessible.js';
import { startStreamRecording } from './support/record-stream.js';
import { longAnswer } from './support/scripted-answer.js';

const { open, storedConversation, bedrock } = registerBrowserHarness();

/** Fragment size of the scripted answers here, about the offline responder's. */
const FRAGMENT_CHARACTERS = 12;

/** An answer to 「プリンターの設置依頼をしたい」 citing 1003 and 1029, the local index's first two for it. */
const printerAnswer = {
  response_type: 'results',
  general_advice:
    '部署のフロアにある複合機は、プリントサーバー prt01 から追加します。エクスプローラーでサーバー名を開き、使う複合機をダブルクリックすると、ドライバーが自動で入ります。一覧に出てこない場合は、異動後のアクセス権の反映を待ってから再度お試しください。',
  results: [
    {
      issue_id: '1003',
      subject: '3階複合機をPCに追加したい（プリンター設定依頼）',
      summary: '異動後、フロアの複合機がプリンター一覧に出てこない。',
      resolution: 'プリントサーバー prt01 から複合機を追加した。',
    },
    {
      issue_id: '1029',
      subject: 'Printer driver error 0x0000011b when adding network printer',
      summary: 'プリンターの追加が 0x0000011b で失敗する。',
      resolution: 'プリントサーバー側のドライバーを更新した。',
    },
  ],
} satisfies Answer;

/** The next model call streams `answer` in 12-character fragments, at the harness's pace. */
function streamAnswer(answer: Answer) {
  bedrock().enqueueScript({
    kind: 'stream',
    fragments: splitIntoFragments(JSON.stringify(answer), [FRAGMENT_CHARACTERS]),
  });
}

describe('the chat web app against the local stack', () => {
  it('streams progress, growing advice and ticket cards one by one into one bubble, then the result', async () => {
    const { page } = await open('browser-flow');
    const samples = await startStreamRecording(page);
    // Held twice inside the advice and once after the first card, so each mid-stream state is on
    // screen until the test has seen it: at the offline responder's pace the whole answer could
    // reach a loaded browser in two paints (CI saw two advice lengths where three were expected).
    const json = JSON.stringify(printerAnswer);
    const adviceStart = json.indexOf(printerAnswer.general_advice);
    const firstCardEnd = json.indexOf('}', json.indexOf('"results"')) + 1;
    const holds = [adviceStart + 20, adviceStart + 60, firstCardEnd].map((characters) =>
      streamHold(Math.ceil(characters / FRAGMENT_CHARACTERS)),
    );
    bedrock().enqueueScript(
      scriptedAnswer(printerAnswer, {
        size: FRAGMENT_CHARACTERS,
        pauseAfter: holds.map(({ pause }) => pause),
      }),
    );
    try {
      await ask(page, 'プリンターの設置依頼をしたい');
      await page
        .locator('.bubble--assistant .progress-step--current')
        .waitFor({ timeout: WAIT_MS });
      let shown = 0;
      for (const [index, hold] of holds.entries()) {
        shown = await waitForAdvice(page, shown); // held: still streaming
        if (index === 1) await page.screenshot({ path: `${SCREENSHOTS}/answer-streaming.png` });
        if (index === 2) {
          await page
            .locator('.bubble--assistant .ticket-card')
            .first()
            .waitFor({ timeout: WAIT_MS });
        }
        hold.release();
      }
    } finally {
      for (const hold of holds) hold.release();
    }
    expect(await waitForAnswer(page, 1)).toBe('complete');

    const seen = await samples();
    const streaming = seen.filter((sample) => sample.status === 'streaming');
    expect(streaming.some((sample) => sample.progressVisible)).toBe(true);
    const lengths = [...new Set(streaming.map((sample) => sample.textLength).filter((n) => n > 0))];
    expect(lengths.length).toBeGreaterThan(2); // the advice grew token by token
    expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
    const finalCards = await page.locator('.bubble--assistant .ticket-card').count();
    expect(finalCards).toBe(printerAnswer.results.length);
    expect(streaming.some((sample) => sample.cards > 0)).toBe(true); // cards arrived before the result
    const finalText =
      (await page.locator('.bubble--assistant .bubble__answer').textContent()) ?? '';
    expect(finalText.length).toBeGreaterThanOrEqual(Math.max(...lengths)); // the result kept the text
    await expect(assistantBubbles(page).count()).resolves.toBe(1);
    await expect(page.locator('.badge--offline').textContent()).resolves.toBe('オフライン応答');
    await expect(page.locator('.kb-details').getAttribute('open')).resolves.toBeNull();
    await page
      .locator('.bubble--assistant .ticket-cards')
      .evaluate((element) => element.scrollIntoView());
    await page.screenshot({ path: `${SCREENSHOTS}/answer-results.png` });
  }, 60_000);

  it('sends on Enter, adds a line on Shift+Enter, and never sends on an Enter that confirms IME input', async () => {
    const { page, chatBodies } = await open('browser-keys');
    const box = page.getByRole('textbox', { name: '問い合わせ内容' });
    await box.fill('1行目');
    await box.press('Shift+Enter');
    await box.pressSequentially('2行目');
    await expect(box.inputValue()).resolves.toBe('1行目\n2行目');
    // What Chromium delivers when Enter confirms a Japanese conversion.
    await box.evaluate((element) => {
      element.dispatchEvent(
        new KeyboardEvent('keydown', { key: 'Enter', isComposing: true, bubbles: true }),
      );
      element.dispatchEvent(
        new KeyboardEvent('keydown', { key: 'Enter', keyCode: 229, bubbles: true }),
      );
    });
    await expect(box.inputValue()).resolves.toBe('1行目\n2行目');
    expect(chatBodies).toHaveLength(0);
    await box.press('Enter');
    await waitForAnswer(page, 1);
    expect(chatBodies).toEqual([expect.objectContaining({ message: '1行目\n2行目' })]);
  }, 60_000);

  it('signs every API write with the SHA-256 of its exact body and the dev identity', async () => {
    const { page, apiWrites } = await open('browser-signing');
    await ask(page, 'プリンターの設置依頼をしたい');
    await waitForAnswer(page, 1);
    await page
      .locator('.conversation-item')
      .first()
      .getByRole('button', { name: '名前を変更' })
      .click();
    await page.getByRole('textbox', { name: '名前を変更' }).fill('署名の確認');
    await page.getByRole('button', { name: '保存', exact: true }).click();
    await page
      .locator('.conversation-item__title', { hasText: '署名の確認' })
      .waitFor({ timeout: WAIT_MS });
    expect(apiWrites.length).toBeGreaterThanOrEqual(2);
    for (const write of apiWrites) {
      expect(write.headers['x-amz-content-sha256']).toBe(
        createHash('sha256').update(write.body, 'utf8').digest('hex'),
      );
      expect(write.headers['x-dev-user']).toBe('browser-signing');
      // The API answers 415 to anything else (a cross-site form or text/plain POST).
      expect(write.headers['content-type']).toMatch(/^application\/json\b/i);
    }
  }, 60_000);

  it('keeps a second inquiry in the same conversation free of the first', async () => {
    const { page, chatBodies } = await open('browser-inquiries');
    await ask(page, 'プリンターの設置依頼をしたい');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    const conversationId = conversationIdOf(page);
    expect(conversationId).toMatch(/^[0-9A-Z]{26}$/);
    const retrievalsBefore = bedrock().retrieveRequests.length;

    await ask(page, 'Salesforceにログインできない');
    expect(await waitForAnswer(page, 2)).not.toBe('failed');

    expect(conversationIdOf(page)).toBe(conversationId);
    expect(chatBodies).toHaveLength(2);
    const second = chatBodies[1] ?? {};
    expect(Object.keys(second).sort()).toEqual(['clientMessageId', 'conversationId', 'message']);
    expect(second).toMatchObject({ conversationId, message: 'Salesforceにログインできない' });
    expect(JSON.stringify(second)).not.toContain('プリンター');
    const newRetrievals = bedrock().retrieveRequests.slice(retrievalsBefore);
    expect(newRetrievals.length).toBeGreaterThan(0);
    for (const request of newRetrievals)
      expect(JSON.stringify(request)).not.toContain('プリンター');

    const secondAnswer = (await assistantBubbles(page).nth(1).textContent()) ?? '';
    expect(secondAnswer).not.toContain('プリンター');
    await expect(page.locator('.inquiry-boundary').count()).resolves.toBe(1);
    await expect(page.locator('.inquiry-boundary').textContent()).resolves.toBe('新しい問い合わせ');
    await page.locator('.inquiry-boundary').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SCREENSHOTS}/inquiry-boundary.png` });
  }, 90_000);

  it('asks back on an ambiguous inquiry, continues with the chosen option, and survives a reload', async () => {
    const { page, chatBodies } = await open('browser-clarify');
    await ask(page, 'ログインできない');
    await waitForAnswer(page, 1);
    const options = page.locator('.clarification__options button');
    expect(await options.count()).toBeGreaterThan(1);
    // The options are a group named by the question, so each one is heard with what it answers.
    const question =
      (await page.locator('.bubble--assistant .clarification__question').textContent()) ?? '';
    expect(question).not.toBe('');
    await expect(
      page.getByRole('group', { name: question }).getByRole('button').count(),
    ).resolves.toBe(await options.count());
    await page.screenshot({ path: `${SCREENSHOTS}/clarification.png` });
    const option = (await options.first().textContent()) ?? '';
    await options.first().click();
    expect(await waitForAnswer(page, 2)).toBe('complete');
    const conversationId = conversationIdOf(page);
    expect(chatBodies[1]).toMatchObject({ conversationId, message: option });
    await expect(
      page.locator('.bubble--assistant').nth(1).locator('.ticket-card').count(),
    ).resolves.toBeGreaterThan(0);
    // The option continued the same inquiry: no boundary between question and answer.
    await expect(page.locator('.inquiry-boundary').count()).resolves.toBe(0);

    const before = await page.locator('.bubble').count();
    await page.reload();
    await page.locator('.bubble--assistant').nth(1).waitFor({ timeout: WAIT_MS });
    expect(await page.locator('.bubble').count()).toBe(before);
    expect(conversationIdOf(page)).toBe(conversationId);
    await expect(
      page.locator('.conversation-item__title').first().textContent(),
    ).resolves.toContain('ログイン');
    await expect(page.locator('.conversation-item--active').count()).resolves.toBe(1);
  }, 90_000);

  it('starts a new inquiry beside a pending clarification, in the same conversation, after a reload too', async () => {
    const { page, chatBodies } = await open('browser-new-inquiry');
    await ask(page, 'ログインできない');
    await waitForAnswer(page, 1);
    await page.locator('.clarification__options button').first().waitFor({ timeout: WAIT_MS });
    const conversationId = conversationIdOf(page);

    // Choosing the action and cancelling it leaves the composer as it was.
    const newInquiry = page.getByRole('button', { name: '別件として新しく質問する' });
    await newInquiry.click();
    await page.locator('.composer__chip').waitFor({ timeout: WAIT_MS });
    await page.getByRole('button', { name: '新しい問い合わせを取り消す' }).click();
    await expect(page.locator('.composer__chip').count()).resolves.toBe(0);

    await newInquiry.click();
    // The question is typed next: the composer has the focus.
    await expect(page.evaluate(() => document.activeElement?.tagName)).resolves.toBe('TEXTAREA');
    await page.screenshot({ path: `${SCREENSHOTS}/new-inquiry-chip.png` });
    const retrievalsBefore = bedrock().retrieveRequests.length;
    await ask(page, 'プリンターの設置依頼をしたい');
    expect(await waitForAnswer(page, 2)).not.toBe('failed');

    expect(conversationIdOf(page)).toBe(conversationId);
    expect(chatBodies[1]).toMatchObject({
      conversationId,
      message: 'プリンターの設置依頼をしたい',
      inquiry: 'new',
    });
    await expect(page.locator('.composer__chip').count()).resolves.toBe(0);
    // The unanswered clarification is over: its options no longer answer anything.
    await expect(page.locator('.clarification__options button:enabled').count()).resolves.toBe(0);
    await expect(page.locator('.inquiry-boundary').count()).resolves.toBe(1);
    const newRetrievals = bedrock().retrieveRequests.slice(retrievalsBefore);
    expect(newRetrievals.length).toBeGreaterThan(0);
    for (const request of newRetrievals) expect(JSON.stringify(request)).not.toContain('ログイン');

    const stored = await storedConversation('browser-new-inquiry', conversationId ?? '');
    const inquiries = (stored.body.turns as unknown as { inquiryId: string }[]).map(
      (turn) => turn.inquiryId,
    );
    expect(inquiries).toHaveLength(4);
    expect(inquiries[0]).toBe(inquiries[1]);
    expect(inquiries[2]).toBe(inquiries[3]);
    expect(inquiries[2]).not.toBe(inquiries[0]);

    await page.reload();
    await assistantBubbles(page).nth(1).waitFor({ timeout: WAIT_MS });
    await expect(page.locator('.inquiry-boundary').count()).resolves.toBe(1);
    await expect(page.locator('.clarification__options button:enabled').count()).resolves.toBe(0);
  }, 90_000);

  it('stops an answer midway: shown as stopped and stored as stopped', async () => {
    const { page } = await open('browser-stop');
    // Held mid-advice until the stop is pressed: the answer cannot finish first however slow the
    // machine is.
    const hold = streamHold(10);
    bedrock().enqueueScript(scriptedAnswer(longAnswer(60), { size: 8, pauseAfter: [hold.pause] }));
    try {
      await ask(page, 'Salesforceにログインできない');
      await waitForAdvice(page, 20);
      await expect(
        page.getByRole('textbox', { name: '問い合わせ内容' }).isDisabled(),
      ).resolves.toBe(true);
      await page.getByRole('button', { name: '停止' }).click();
      expect(await waitForAnswer(page, 1)).toBe('stopped');
    } finally {
      hold.release();
    }
    await expect(page.locator('.status-notice').textContent()).resolves.toContain('停止しました');
    await page.screenshot({ path: `${SCREENSHOTS}/stopped.png` });

    const conversationId = conversationIdOf(page) ?? '';
    await expect
      .poll(
        async () =>
          (await storedConversation('browser-stop', conversationId)).body.turns.at(-1)?.status,
        {
          timeout: WAIT_MS,
        },
      )
      .toBe('stopped');
    await page.reload();
    expect(await waitForAnswer(page, 1)).toBe('stopped');
  }, 90_000);

  it('keeps a stream in its own conversation while the user switches to another', async () => {
    const { page } = await open('browser-switch');
    await ask(page, 'プリンターの設置依頼をしたい');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    const first = conversationIdOf(page);

    // Held mid-advice while the user is in the other conversation, so the switch happens with the
    // stream surely in flight.
    const hold = streamHold(10);
    bedrock().enqueueScript(scriptedAnswer(longAnswer(12), { size: 8, pauseAfter: [hold.pause] }));
    const printerPaneUntouched = async () => {
      expect(conversationIdOf(page)).toBe(first);
      await page
        .locator('.bubble--user', { hasText: 'プリンターの設置依頼をしたい' })
        .waitFor({ timeout: WAIT_MS });
      await expect(page.locator('.bubble').count()).resolves.toBe(2);
      await expect(page.locator('.bubble--assistant').getAttribute('data-status')).resolves.toBe(
        'complete',
      );
      await expect(page.locator('.conversation-pane').textContent()).resolves.not.toContain(
        'パスワードの有効期限',
      );
      await expect(
        page.getByRole('textbox', { name: '問い合わせ内容' }).isDisabled(),
      ).resolves.toBe(false);
    };
    let second: string | null;
    try {
      await page.getByRole('button', { name: '新しい会話' }).click();
      await ask(page, 'Salesforceにログインできない');
      await waitForAdvice(page, 10);
      await page.waitForFunction(() => new URL(location.href).searchParams.has('c'), undefined, {
        timeout: WAIT_MS,
      });
      second = conversationIdOf(page);
      expect(second).not.toBe(first);

      await page.locator('.conversation-item__open', { hasText: 'プリンター' }).click();
      await printerPaneUntouched();
    } finally {
      hold.release();
    }
    // The rest of the stream is generated and stored while this conversation is on screen.
    await expect
      .poll(
        async () =>
          (await storedConversation('browser-switch', second ?? '')).body.turns.at(-1)?.status,
        { timeout: WAIT_MS },
      )
      .toBe('complete');
    await printerPaneUntouched();

    await page.locator('.conversation-item__open', { hasText: 'Salesforce' }).click();
    expect(await waitForAnswer(page, 1)).toBe('complete');
    await expect(page.locator('.bubble__answer').textContent()).resolves.toContain(
      'パスワードの有効期限',
    );
    // The live stream has ended in its own view (a snapshot is not read while it runs); nothing
    // of it reached the first conversation.
    await page.locator('.conversation-item__open', { hasText: 'プリンター' }).click();
    await printerPaneUntouched();
  }, 90_000);

  it('renames and deletes conversations from the sidebar, and switches language', async () => {
    const { page } = await open('browser-sidebar');
    await ask(page, 'プリンターの設置依頼をしたい');
    await waitForAnswer(page, 1);
    const item = page.locator('.conversation-item').first();
    await item.getByRole('button', { name: '名前を変更' }).click();
    await page.getByRole('textbox', { name: '名前を変更' }).fill('3F 複合機の設置');
    await page.getByRole('button', { name: '保存', exact: true }).click();
    await page
      .locator('.conversation-item__title', { hasText: '3F 複合機の設置' })
      .waitFor({ timeout: WAIT_MS });
    await page.reload();
    await page
      .locator('.conversation-item__title', { hasText: '3F 複合機の設置' })
      .waitFor({ timeout: WAIT_MS });

    await page.getByLabel('言語').selectOption('en');
    await page.getByRole('button', { name: 'New conversation' }).waitFor();
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');
    await expectAccessible(page, 'the chat with a complete answer, in English');
    await page.getByLabel('Language').selectOption('ja');

    await page.locator('.conversation-item').first().getByRole('button', { name: '削除' }).click();
    await expect(page.locator('.conversation-item__confirm').textContent()).resolves.toContain(
      '元に戻せません',
    );
    await page.getByRole('button', { name: '削除する' }).click();
    await page.locator('.sidebar__empty').waitFor({ timeout: WAIT_MS });
    expect(conversationIdOf(page)).toBeNull();
    await expect(page.locator('.bubble').count()).resolves.toBe(0);
  }, 60_000);

  it('explains a failed answer in words and retries it with the same clientMessageId', async () => {
    const { page, chatBodies } = await open('browser-retry');
    bedrock().enqueueScript({
      kind: 'stream',
      fragments: splitIntoFragments(JSON.stringify(longAnswer(3)), [8]),
      failAfter: 4,
    });
    await ask(page, 'Salesforceにログインできない');
    expect(await waitForAnswer(page, 1)).toBe('failed');
    const notice = page.locator('.status-notice');
    await expect(notice.textContent()).resolves.toContain('回答を作成できませんでした。');
    await expect(notice.getAttribute('role')).resolves.toBe('alert');
    await page.screenshot({ path: `${SCREENSHOTS}/failed-retry.png` });

    await notice.getByRole('button', { name: 'もう一度試す' }).click();
    expect(await waitForAnswer(page, 1)).toBe('complete');
    expect(chatBodies).toHaveLength(2);
    expect(chatBodies[1]?.clientMessageId).toBe(chatBodies[0]?.clientMessageId);
    await expect(page.locator('.bubble--user').count()).resolves.toBe(1);
  }, 60_000);

  it('keeps an answer whose stream broke off after advice arrived: shown as cut off, the same after a reload', async () => {
    const { page } = await open('browser-cut');
    bedrock().enqueueScript({
      kind: 'stream',
      fragments: splitIntoFragments(JSON.stringify(longAnswer(3)), [8]),
      failAfter: 12,
    });
    await ask(page, 'Salesforceにログインできない');
    expect(await waitForAnswer(page, 1)).toBe('truncated');
    const answer = page.locator('.bubble--assistant .bubble__answer');
    const shown = (await answer.textContent()) ?? '';
    expect(shown).toContain('パスワード');
    const notice = page.locator('.status-notice');
    await expect(notice.textContent()).resolves.toBe(
      '回答が途中で途切れました。表示されているのは届いた部分までです。',
    );
    await expect(notice.getAttribute('role')).resolves.toBe('status');
    await page.screenshot({ path: `${SCREENSHOTS}/truncated.png` });

    await page.reload();
    expect(await waitForAnswer(page, 1)).toBe('truncated');
    await expect(answer.textContent()).resolves.toBe(shown);
    await expect(notice.textContent()).resolves.toContain('途中で途切れました');
  }, 60_000);

  it('shows each dev user only their own conversations', async () => {
    const alice = await open('browser-alice');
    await ask(alice.page, 'プリンターの設置依頼をしたい');
    await waitForAnswer(alice.page, 1);
    const aliceConversation = conversationIdOf(alice.page) ?? '';
    await expect(alice.page.locator('.conversation-item').count()).resolves.toBe(1);

    const bob = await open('browser-bob', { path: `/?c=${aliceConversation}` });
    await bob.page.locator('.conversation-pane [role="alert"]').waitFor({ timeout: WAIT_MS });
    await expect(bob.page.locator('.bubble').count()).resolves.toBe(0);
    expect(conversationIdOf(bob.page)).toBeNull(); // the dead link was left for a fresh conversation
    // The list loads beside the conversation (and /api/me): wait for it rather than race it.
    await bob.page.locator('.sidebar__empty').waitFor({ state: 'visible', timeout: WAIT_MS });
    expect((await storedConversation('browser-bob', aliceConversation)).status).toBe(404);

    // Switching identity in the header swaps the whole list.
    const userBox = alice.page.getByLabel('開発ユーザー');
    await userBox.fill('browser-bob');
    await alice.page.getByRole('button', { name: '切り替え' }).click();
    await alice.page.locator('.sidebar__empty').waitFor({ timeout: WAIT_MS });
    await expect(alice.page.locator('.conversation-item').count()).resolves.toBe(0);
    expect(conversationIdOf(alice.page)).toBeNull();
  }, 90_000);

  it('renders model markdown inert: no script runs, no handlers, no javascript: links', async () => {
    const { page, dialogs, cspViolations } = await open('browser-xss');
    streamAnswer({
      response_type: 'results',
      general_advice: [
        '注意: <img src=x onerror=alert(1)> と [x](javascript:alert(1)) と <script>alert(2)</script> と [手順書](https://support.microsoft.com/guide)',
        '<svg onload=alert(3)><circle r=5 /></svg> <a href="javascript:alert(4)">リンク</a>',
        '<p style="background:url(https://attacker.example/leak)" onclick="alert(5)">段落</p>',
        '<iframe src="https://attacker.example/"></iframe><object data="x"></object>',
        '<details open ontoggle=alert(6)>x</details> <body onload=alert(7)> <math><mtext><img src=x onerror=alert(8)></mtext></math>',
        '<img src="data:image/svg+xml,<svg onload=alert(9)>"> <style>*{color:red}</style>',
      ].join('\n\n'),
      results: [],
    });
    await ask(page, 'Salesforceにログインできない');
    await waitForAnswer(page, 1);
    const answer = page.locator('.bubble--assistant .bubble__answer');
    await expect(answer.textContent()).resolves.toContain('手順書');
    expect(await page.locator('[onerror]').count()).toBe(0);
    expect(await answer.locator('img, script').count()).toBe(0);
    expect(await page.locator('a[href^="javascript:" i]').count()).toBe(0);
    const safe = answer.locator('a[href="https://support.microsoft.com/guide"]');
    await expect(safe.getAttribute('target')).resolves.toBe('_blank');
    await expect(safe.getAttribute('rel')).resolves.toBe('noopener noreferrer');
    expect(await answer.locator('svg, iframe, object, style, details, math, [style]').count()).toBe(
      0,
    );
    expect(await page.locator('[onload], [onclick], [ontoggle]').count()).toBe(0);
    await expect(answer.textContent()).resolves.toContain('段落');
    expect(dialogs).toEqual([]);
    // Nothing hostile even meets the CSP: sanitising never puts it into a live document, so a
    // deployment with CSP reporting sees no false alarm (the harness fails on any violation).
    expect(cspViolations).toEqual([]);
  }, 60_000);

  it('shows links outside the allow-list as unverified text, never as anchors, and keeps them out of the mail draft', async () => {
    const { page } = await open('browser-unverified-links');
    streamAnswer({
      response_type: 'results',
      general_advice:
        'チケットには [パスワード再設定](http://evil.example/reset) とあります。' +
        '<https://support.microsoft.com@evil.example/login> や evil.example/reset も同じです。\n\n' +
        '正しくは [サポート](https://support.microsoft.com/ja-jp) を案内します。',
      results: [],
      mail_draft: 'パスワードは http://evil.example/reset で再設定してください。',
      todo_actions: ['http://evil.example/reset を案内する'],
    });
    await ask(page, 'パスワードをリセットしたい');
    expect(await waitForAnswer(page, 1)).toBe('complete');

    const expectLinks = async () => {
      const answer = page.locator('.bubble--assistant .bubble__answer');
      await expect(answer.locator('a[href*="evil"]').count()).resolves.toBe(0);
      const marks = answer.locator('.unverified-link');
      await expect(marks.allTextContents()).resolves.toEqual([
        'パスワード再設定',
        'https://support.microsoft.com@evil.example/login',
        'evil.example/reset',
      ]);
      await expect(marks.first().getAttribute('title')).resolves.toBe(
        '許可されていないリンクです（許可リスト外のドメイン、または https・mailto 以外。未確認・クリックできません）',
      );
      const allowed = answer.locator('a[href="https://support.microsoft.com/ja-jp"]');
      await expect(allowed.getAttribute('rel')).resolves.toBe('noopener noreferrer');
      const draft = await page.locator('.mail-draft__body').textContent();
      expect(draft).not.toContain('evil.example');
      expect(draft).toContain('［リンク削除］');
      await expect(page.locator('.todo__list').textContent()).resolves.not.toContain('evil');
      await expect(page.locator('.unverified-links-notice').count()).resolves.toBe(1);
    };
    await expectLinks();
    await page.screenshot({ path: `${SCREENSHOTS}/unverified-links.png` });
    await page.reload();
    expect(await waitForAnswer(page, 1)).toBe('complete');
    await expectLinks();
  }, 60_000);

  it('marks ticket numbers the answer cites without retrieving them, in advice and mail draft, after a reload too', async () => {
    const { page } = await open('browser-unverified');
    streamAnswer({
      response_type: 'results',
      general_advice:
        '**#99999** と同じ手順です。チケット88888 も参照。<span class="unverified-reference" title="偽">#1</span>',
      results: [],
      mail_draft: 'INC-77777 と同様にご案内します。',
    });
    await ask(page, 'Salesforceにログインできない');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    // The retrieved tickets are listed by number in the KB details.
    await expect(page.locator('.kb-details__id').first().textContent()).resolves.toMatch(/^#\d+$/);

    const expectMarks = async () => {
      const answer = page.locator('.bubble--assistant .bubble__answer');
      const marks = answer.locator('.unverified-reference');
      // The span written by the model is not a mark: sanitising dropped it, its text stays text.
      await expect(marks.allTextContents()).resolves.toEqual(['#99999', 'チケット88888']);
      await expect(marks.first().getAttribute('title')).resolves.toBe(
        '取得したチケットに含まれていない番号です（未確認）',
      );
      await expect(answer.locator('[title="偽"]').count()).resolves.toBe(0);
      await expect(answer.textContent()).resolves.toContain('参照。#1');
      await expect(
        page.locator('.mail-draft__body .unverified-reference').allTextContents(),
      ).resolves.toEqual(['INC-77777']);
      await expect(page.locator('.mail-draft__body').textContent()).resolves.toBe(
        'INC-77777 と同様にご案内します。',
      );
    };
    await expectMarks();
    await page.screenshot({ path: `${SCREENSHOTS}/unverified-references.png` });
    await page.reload();
    expect(await waitForAnswer(page, 1)).toBe('complete');
    await expectMarks();
  }, 60_000);

  it('stays readable at 360 px wide', async () => {
    const { page } = await open('browser-mobile', { width: 360, height: 740 });
    await ask(page, 'プリンターの設置依頼をしたい');
    await waitForAnswer(page, 1);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - window.innerWidth,
    );
    expect(overflow).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SCREENSHOTS}/mobile-360.png` });
    // Reflowed, every target still reachable and labelled (WCAG 2.2 target size included).
    await expectAccessible(page, 'a complete answer at 360 px wide');
  }, 60_000);
});
