/// <reference lib="dom" />
// Callbacks passed to page.evaluate/waitForFunction run in the browser.
import type { Page } from 'playwright-core';

/** What the newest answer bubble looked like after one DOM change. */
export interface StreamSample {
  readonly status: string;
  readonly textLength: number;
  readonly cards: number;
  readonly progressVisible: boolean;
}

/**
 * Starts recording the newest answer bubble on every DOM mutation, so a test can check the order
 * of what appeared (progress, growing text, cards one by one) without sleeping or timing.
 */
export async function startStreamRecording(page: Page): Promise<() => Promise<StreamSample[]>> {
  await page.evaluate(() => {
    const samples: unknown[] = [];
    (window as unknown as { __streamSamples: unknown[] }).__streamSamples = samples;
    const observer = new MutationObserver(() => {
      const all = document.querySelectorAll('.bubble--assistant');
      const bubble = all[all.length - 1];
      if (!bubble) return;
      samples.push({
        status: bubble.getAttribute('data-status') ?? '',
        textLength: bubble.querySelector('.bubble__answer')?.textContent?.length ?? 0,
        cards: bubble.querySelectorAll('.ticket-card').length,
        progressVisible: bubble.querySelector('.progress-steps') !== null,
      });
    });
    observer.observe(document.body, {
      subtree: true,
      childList: true,
      characterData: true,
      attributes: true,
    });
  });
  return () =>
    page.evaluate(() => (window as unknown as { __streamSamples: StreamSample[] }).__streamSamples);
}
