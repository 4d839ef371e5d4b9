/// <reference lib="dom" />
// Callbacks passed to page.evaluate/waitForFunction run in the browser.
import type { Locator, Page } from 'playwright-core';

/** Generous: the offline responder is paced, and CI machines are shared. */
export const WAIT_MS = 25_000;

/** Types an inquiry and sends it with Enter, as staff do. */
export async function ask(page: Page, text: string): Promise<void> {
  const box = page.getByRole('textbox', { name: '問い合わせ内容' });
  await box.fill(text);
  await box.press('Enter');
}

export function assistantBubbles(page: Page): Locator {
  return page.locator('.bubble--assistant');
}

/** Waits until the newest answer has left `streaming` and returns its final status. */
export async function waitForAnswer(page: Page, count: number): Promise<string> {
  const bubble = assistantBubbles(page).nth(count - 1);
  await bubble.waitFor({ timeout: WAIT_MS });
  await page.waitForFunction(
    (index) => {
      const bubbles = document.querySelectorAll('.bubble--assistant');
      const status = bubbles[index]?.getAttribute('data-status');
      return status !== undefined && status !== null && status !== 'streaming';
    },
    count - 1,
    { timeout: WAIT_MS },
  );
  return (await bubble.getAttribute('data-status')) ?? '';
}

/**
 * Waits until the first answer's advice shows more than `characters` characters (mid-stream), and
 * returns how many it shows then.
 */
export async function waitForAdvice(page: Page, characters: number): Promise<number> {
  const shown = await page.waitForFunction(
    (min) => {
      const length =
        document.querySelector('.bubble--assistant .bubble__answer')?.textContent?.length ?? 0;
      return length > min ? length : false;
    },
    characters,
    { timeout: WAIT_MS },
  );
  return (await shown.jsonValue()) as number;
}

/** The open conversation id from the address bar (`?c=`). */
export function conversationIdOf(page: Page): string | null {
  return new URL(page.url()).searchParams.get('c');
}
