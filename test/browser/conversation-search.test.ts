/// <reference lib="dom" />
import { describe, expect, it } from 'vitest';
import { registerBrowserHarness, SCREENSHOTS } from './support/browser-harness.js';
import { ask, WAIT_MS, waitForAnswer } from './support/chat-actions.js';

const { open } = registerBrowserHarness();

describe('searching conversations in the sidebar', () => {
  it('narrows the list to conversations whose title or messages match, and restores it when cleared', async () => {
    const { page } = await open('browser-search');
    await ask(page, 'VPNにつながらない');
    await waitForAnswer(page, 1);
    await page.getByRole('button', { name: '新しい会話' }).click();
    await ask(page, 'Teamsで音が出ない');
    await waitForAnswer(page, 1);
    // A later message of the Teams conversation mentions VPN in full-width letters.
    await ask(page, 'ＶＰＮ経由のときだけ音が途切れます');
    await waitForAnswer(page, 2);
    const titles = page.locator('.conversation-item__title');
    await expect.poll(() => titles.count(), { timeout: WAIT_MS }).toBe(2);

    const box = page.getByRole('searchbox', { name: '会話を検索' });
    await box.fill('vpn');
    await expect
      .poll(async () => page.locator('.sidebar__heading').textContent(), { timeout: WAIT_MS })
      .toBe('検索結果');
    await expect
      .poll(() => titles.allTextContents(), { timeout: WAIT_MS })
      .toEqual(['Teamsで音が出ない', 'VPNにつながらない']);
    await box.fill('teams 途切れ');
    await expect
      .poll(() => titles.allTextContents(), { timeout: WAIT_MS })
      .toEqual(['Teamsで音が出ない']);
    await page.screenshot({ path: `${SCREENSHOTS}/sidebar-search.png` });
    await box.fill('プリンター');
    await page.getByText('一致する会話はありません').waitFor({ timeout: WAIT_MS });

    await box.fill('');
    await expect.poll(() => titles.count(), { timeout: WAIT_MS }).toBe(2);
    await expect(page.locator('.sidebar__heading').textContent()).resolves.toBe('会話一覧');
  }, 90_000);
});
