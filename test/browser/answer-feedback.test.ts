/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { registerBrowserHarness, SCREENSHOTS } from './support/browser-harness.js';
import { ask, conversationIdOf, WAIT_MS, waitForAnswer } from './support/chat-actions.js';

const { open, storedConversation } = registerBrowserHarness();

interface StoredFeedbackTurn {
  seq: number;
  role: string;
  kind: string;
  feedback?: Record<string, unknown>;
}

describe('feedback on answers in the web app', () => {
  it('rates an answer, marks the ticket that solved it, changes to 👎 with a reason, and keeps it all after a reload', async () => {
    const { page } = await open('browser-feedback');
    await ask(page, 'プリンターの設置依頼をしたい');
    expect(await waitForAnswer(page, 1)).toBe('complete');
    const bubble = page.locator('.bubble--assistant').first();
    const up = bubble.getByRole('button', { name: '役に立った', exact: true });
    const down = bubble.getByRole('button', { name: '役に立たなかった', exact: true });
    const firstCard = bubble.locator('.ticket-card').first();
    const issueId = (await firstCard.getAttribute('data-issue-id')) ?? '';
    const solved = firstCard.getByRole('button', { name: /この件で解決/ });

    await up.click();
    await bubble.getByText('評価を保存しました').waitFor({ timeout: WAIT_MS });
    await expect(up.getAttribute('aria-pressed')).resolves.toBe('true');

    await solved.click();
    await page.waitForFunction(
      (id) =>
        document
          .querySelector(`.ticket-card[data-issue-id="${id}"] .solved-toggle`)
          ?.getAttribute('aria-pressed') === 'true',
      issueId,
      { timeout: WAIT_MS },
    );

    await down.click();
    await bubble.getByRole('radio', { name: '情報が足りない' }).check();
    await bubble
      .getByRole('textbox', { name: 'コメント（任意）' })
      .fill('設置場所の確認手順がない');
    await page.screenshot({ path: `${SCREENSHOTS}/feedback-reason.png` });
    await bubble.getByRole('button', { name: '評価を送信' }).click();
    await page.waitForFunction(
      () =>
        document
          .querySelector('.bubble--assistant .feedback-button[aria-expanded]')
          ?.getAttribute('aria-pressed') === 'true',
      undefined,
      { timeout: WAIT_MS },
    );
    await expect(up.getAttribute('aria-pressed')).resolves.toBe('false');
    // 👎 kept the ticket that solved it: one feedback, sent whole each time.
    await expect(solved.getAttribute('aria-pressed')).resolves.toBe('true');

    const conversationId = conversationIdOf(page) ?? '';
    const stored = await storedConversation('browser-feedback', conversationId);
    const answer = (stored.body.turns as unknown as StoredFeedbackTurn[]).find(
      (turn) => turn.kind === 'answer',
    );
    expect(answer?.feedback).toEqual({
      rating: 'down',
      reason: 'incomplete',
      comment: '設置場所の確認手順がない',
      helpfulTicketIds: [issueId],
      updatedAt: expect.any(String),
    });

    await page.reload();
    const reloaded = page.locator('.bubble--assistant').first();
    await reloaded.locator('.answer-feedback').waitFor({ timeout: WAIT_MS });
    await expect(
      reloaded
        .getByRole('button', { name: '役に立たなかった', exact: true })
        .getAttribute('aria-pressed'),
    ).resolves.toBe('true');
    await expect(
      reloaded
        .locator(`.ticket-card[data-issue-id="${issueId}"] .solved-toggle`)
        .getAttribute('aria-pressed'),
    ).resolves.toBe('true');
    await page.screenshot({ path: `${SCREENSHOTS}/feedback-after-reload.png` });
  }, 90_000);

  it('offers no rating on a clarification, only on answers', async () => {
    const { page } = await open('browser-feedback-clarify');
    await ask(page, 'ログインできない');
    await waitForAnswer(page, 1);
    await page.locator('.clarification__options button').first().waitFor({ timeout: WAIT_MS });
    await expect(page.locator('.answer-feedback').count()).resolves.toBe(0);
    await page.locator('.clarification__options button').first().click();
    expect(await waitForAnswer(page, 2)).toBe('complete');
    await expect(page.locator('.answer-feedback').count()).resolves.toBe(1);
    await expect(
      page.locator('.bubble--assistant').nth(1).locator('.solved-toggle').count(),
    ).resolves.toBeGreaterThan(0);
  }, 90_000);
});
