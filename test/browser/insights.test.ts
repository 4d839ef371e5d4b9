/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { registerBrowserHarness, SCREENSHOTS } from './support/browser-harness.js';
import { ask, WAIT_MS, waitForAnswer } from './support/chat-actions.js';
import { expectAccessible } from './support/expect-accessible.js';

// One lead; everyone else is staff. The stack records insights where chats and feedback happen;
// every retrieval counts as weak (INSIGHTS_GAP_SCORE 1), so each inquiry is a gap with its
// example whatever the local index scores.
const LEAD = 'browser-lead';
const { open, baseUrl } = registerBrowserHarness({
  functionEnvironment: { SERVICE_DESK_LEADS: LEAD, INSIGHTS_GAP_SCORE: '1' },
});

const INSIGHTS_TITLE = 'サービスデスク インサイト';

/** Asks, waits for the complete answer, and returns the newest answer's bubble. */
async function answered(page: Page, text: string, count: number) {
  await ask(page, text);
  expect(await waitForAnswer(page, count)).toBe('complete');
  return page.locator('.bubble--assistant').nth(count - 1);
}

/** The value shown beside a figure's label in a section (`<dt>` → `<dd>`). */
async function figure(page: Page, sectionName: string, label: string): Promise<string> {
  const section = page.getByRole('region', { name: sectionName });
  const term = section.locator('.insights-figure', {
    has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }),
  });
  return (await term.locator('dd').textContent()) ?? '';
}

describe('the insights page', () => {
  it('shows a lead who chatted, rated and marked a solution the figures of that use', async () => {
    const { page } = await open(LEAD);
    // 1. An answer rated 👍 whose first card staff marked as the solution.
    const solvedBubble = await answered(page, 'プリンターの設置依頼をしたい', 1);
    const solvedCard = solvedBubble.locator('.ticket-card').first();
    const solvedIssueId = (await solvedCard.getAttribute('data-issue-id')) ?? '';
    expect(solvedIssueId).not.toBe('');
    await solvedBubble.getByRole('button', { name: '役に立った', exact: true }).click();
    await solvedBubble.getByText('評価を保存しました').waitFor({ timeout: WAIT_MS });
    await solvedCard.getByRole('button', { name: /この件で解決/ }).click();
    await page.waitForFunction(
      (id) =>
        document
          .querySelector(`.ticket-card[data-issue-id="${id}"] .solved-toggle`)
          ?.getAttribute('aria-pressed') === 'true',
      solvedIssueId,
      { timeout: WAIT_MS },
    );

    // 1b. Its e-mail draft copied (the clipboard recorded in the page) and then edited: one
    // accepted answer, changed. The next answer's draft stays untouched.
    await page.evaluate(() => {
      Object.defineProperty(navigator, 'clipboard', {
        configurable: true,
        value: { writeText: async () => undefined },
      });
    });
    const draft = solvedBubble.getByRole('region', { name: '依頼者へのメール下書き' });
    await draft.getByRole('button', { name: 'コピー' }).click();
    await draft.getByRole('button', { name: 'コピーしました' }).waitFor({ timeout: WAIT_MS });
    await draft.getByRole('button', { name: 'メール下書きを編集' }).click();
    await draft
      .getByRole('textbox', { name: 'メール下書きを編集（Esc でキャンセル）' })
      .fill('お問い合わせの件、設置日を調整してご連絡します。');
    await draft.getByRole('button', { name: '新しい版として保存' }).click();
    await draft
      .locator('.mail-draft__counter', { hasText: /^2\/2$/ })
      .waitFor({ timeout: WAIT_MS });

    // 2. A new inquiry rated 👎 because its tickets were irrelevant: a knowledge gap.
    await page.getByRole('button', { name: '新しい会話' }).click();
    const gapInquiry = '会議室のプロジェクターが映らない';
    const gapBubble = await answered(page, gapInquiry, 1);
    await gapBubble.getByRole('button', { name: '役に立たなかった', exact: true }).click();
    await gapBubble.getByRole('radio', { name: '関係のないチケット' }).check();
    await expectAccessible(page, 'the 👎 rating with its reasons open');
    await gapBubble.getByRole('button', { name: '評価を送信' }).click();
    await page.waitForFunction(
      () =>
        document
          .querySelector('.bubble--assistant .feedback-button[aria-expanded]')
          ?.getAttribute('aria-pressed') === 'true',
      undefined,
      { timeout: WAIT_MS },
    );

    // 3. The header's link, shown to leads only, opens the page (a full load of /insights).
    await page.getByRole('link', { name: 'インサイト' }).click();
    await page.getByRole('heading', { name: INSIGHTS_TITLE }).waitFor({ timeout: WAIT_MS });
    expect(new URL(page.url()).pathname).toBe('/insights');
    await page.getByRole('region', { name: '利用状況' }).waitFor({ timeout: WAIT_MS });

    expect(Number(await figure(page, '利用状況', 'チャット'))).toBeGreaterThanOrEqual(2);
    expect(await page.getByRole('region', { name: '利用状況' }).textContent()).toContain(
      '1 件 👍 / 1 件 👎',
    );
    const chatsChart = page.getByRole('img', { name: /^1 日あたりのチャット数: 合計 [2-9]/ });
    await expect(chatsChart.count()).resolves.toBe(1);

    const gaps = page.getByRole('region', { name: 'ナレッジの不足' });
    await expect(gaps.locator('.insights-gap').count()).resolves.toBeGreaterThan(0);
    expect(await gaps.textContent()).toContain(gapInquiry);
    // The asker appears as a hash, never by name.
    expect(await gaps.textContent()).not.toContain(LEAD);

    const helped = page.getByRole('region', { name: '役に立ったもの' });
    const solvedRows = helped
      .locator('.insights-table', { hasText: '解決に使われたチケット' })
      .locator('tbody tr');
    await expect(solvedRows.count()).resolves.toBeGreaterThan(0);
    expect(await solvedRows.first().textContent()).toContain(solvedIssueId);

    // The replies: two answers with a draft, one copied (50 %), and that one edited (100 %).
    expect(await figure(page, '返信の下書き', '採用率')).toBe('50%1 / 2 件');
    expect(await figure(page, '返信の下書き', '編集率')).toBe('100%1 / 1 件');
    expect(await figure(page, '返信の下書き', 'コピー')).toBe('1');
    expect(await figure(page, '返信の下書き', '編集')).toBe('1');
    const repliesChart = page.getByRole('img', {
      name: '1 日あたりの使われた下書き: 下書き付きの回答 2 件のうち 使われた下書き 1 件',
    });
    await expect(repliesChart.count()).resolves.toBe(1);

    await page.getByRole('region', { name: 'ナレッジ化' }).waitFor();
    await page.getByRole('region', { name: /検索の評価/ }).waitFor();
    await page.screenshot({ path: `${SCREENSHOTS}/insights.png`, fullPage: true });
    await expectAccessible(page, 'the insights page of a lead');

    // 4. The 90-day window: one bar per day, the choice shown as pressed.
    await page.getByRole('button', { name: '直近 90 日' }).click();
    await page.waitForFunction(
      () =>
        document.querySelectorAll('.insights-chart')[0]?.querySelectorAll('tbody tr').length === 90,
      undefined,
      { timeout: WAIT_MS },
    );
    await expect(
      page.getByRole('button', { name: '直近 90 日' }).getAttribute('aria-pressed'),
    ).resolves.toBe('true');

    // 5. English, from the same language switcher as the chat.
    await page.getByRole('combobox', { name: '言語' }).selectOption('en');
    await page.getByRole('heading', { name: 'Service-desk insights' }).waitFor();
    await page.getByRole('region', { name: 'Knowledge gaps' }).waitFor();
    expect(await figure(page, 'Replies', 'Acceptance rate')).toBe('50%1 of 2');
    await expectAccessible(page, 'the insights page of a lead, in English');
  }, 180_000);

  it('shows staff no link, and the page itself says it is only for service-desk leads', async () => {
    const { page } = await open('browser-staff');
    // Wait for the answer of GET /api/me that decides the link, then look for it.
    await page.waitForLoadState('networkidle');
    await expect(page.getByRole('link', { name: 'インサイト' }).count()).resolves.toBe(0);

    await page.goto(`${baseUrl()}/insights`);
    const alert = page.getByRole('alert');
    await alert.waitFor({ timeout: WAIT_MS });
    expect(await alert.textContent()).toContain('サービスデスクのリーダー専用');
    await expect(page.getByRole('region', { name: '利用状況' }).count()).resolves.toBe(0);
    // No "load again": a 403 does not change by asking again.
    await expect(page.getByRole('button', { name: 'もう一度読み込む' }).count()).resolves.toBe(0);
    await expectAccessible(page, 'the insights page refusing a non-lead');
    await page.screenshot({ path: `${SCREENSHOTS}/insights-not-a-lead.png` });
  }, 90_000);
});
