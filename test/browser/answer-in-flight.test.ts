/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { scriptedAnswer, streamHold } from '../support/scripted-answer.js';
import { registerBrowserHarness, SCREENSHOTS } from './support/browser-harness.js';
import {
  ask,
  conversationIdOf,
  WAIT_MS,
  waitForAdvice,
  waitForAnswer,
} from './support/chat-actions.js';
import { longAnswer } from './support/scripted-answer.js';

const { open, bedrock } = registerBrowserHarness();

describe('an answer in flight across a reload', () => {
  it('shows the answer as still being written after a reload, then fills it in once stored', async () => {
    const { page } = await open('browser-in-flight');
    const answer = longAnswer(40);
    // Held mid-advice until the reloaded page has shown the answer as in flight: a timed window
    // (a stream of ten seconds) could close before a loaded browser is back.
    const hold = streamHold(10);
    bedrock().enqueueScript(scriptedAnswer(answer, { size: 8, pauseAfter: [hold.pause] }));
    try {
      await ask(page, 'Salesforceにログインできない');
      await waitForAdvice(page, 20);
      const conversationId = conversationIdOf(page);
      // The server keeps generating: Lambda cannot see the browser leave.
      await page.reload();
      const placeholder = page.locator('.bubble--assistant[data-status="streaming"]');
      await placeholder.waitFor({ timeout: WAIT_MS });
      await expect(placeholder.getByRole('status').textContent()).resolves.toContain(
        '回答を作成中',
      );
      await page.screenshot({ path: `${SCREENSHOTS}/answer-in-flight.png` });
      expect(conversationIdOf(page)).toBe(conversationId);
    } finally {
      hold.release();
    }

    expect(await waitForAnswer(page, 1)).toBe('complete');
    await expect(page.locator('.bubble--assistant').count()).resolves.toBe(1);
    const shown = (await page.locator('.bubble--assistant .bubble__answer').textContent()) ?? '';
    expect(shown.length).toBeGreaterThan(answer.general_advice.length / 2);
    await expect(page.getByText('回答を作成中').count()).resolves.toBe(0);
  }, 90_000);
});
