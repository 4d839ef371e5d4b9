/// <reference lib="dom" />
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { registerBrowserHarness } from './support/browser-harness.js';
import { ask, WAIT_MS, waitForAnswer } from './support/chat-actions.js';
import { signInAtProvider } from './support/open-app.js';

// `AUTH_MODE=oidc npm start` without OIDC_ISSUER: the local OpenID provider with its dev
// accounts (local/oidc/dev-accounts.ts). Each test signs in through the real protocol
// (authorization code + PKCE, a JWT access token the function verifies) as one account, and
// sees what that account's roles allow — nothing is set per user in the function's settings.
const { open } = registerBrowserHarness({ environment: { AUTH_MODE: 'oidc' } });

/** What the page shows the signed-in account: the header's name, and what its roles unlock. */
async function whatTheyCanDo(page: Page) {
  await ask(page, 'プリンターの設置依頼をしたい');
  expect(await waitForAnswer(page, 1)).toBe('complete');
  return {
    name: await page.locator('.signed-in-user__name').textContent(),
    saveAsKnowledge: await page.getByRole('button', { name: 'ナレッジとして保存' }).count(),
    insightsLink: await page.getByRole('link', { name: 'インサイト' }).count(),
  };
}

// Each test signs in through the provider and waits for one answer (the first, a cold start):
// like chat-app's, more than the default 30 s on a busy machine.
describe('sign-in at an OpenID provider', () => {
  it('signs a staff member in with a token, not a dev-user header, and out at the provider', async () => {
    const app = await open('unused', { signInAs: 'staff' });
    expect(await whatTheyCanDo(app.page)).toEqual({
      name: 'Sato (IT desk)',
      saveAsKnowledge: 0,
      insightsLink: 0,
    });
    const chat = app.apiWrites.at(-1);
    expect(chat?.headers['x-auth-token']).toMatch(/^ey/);
    expect(chat?.headers['x-dev-user']).toBeUndefined();
    // The API refuses the same request without the token.
    const refused = await app.page.evaluate(async () => {
      const response = await fetch('/api/conversations');
      return { status: response.status, body: await response.json() };
    });
    expect(refused).toEqual({
      status: 401,
      body: { error: expect.objectContaining({ code: 'unauthorized' }) },
    });

    // Sign-out ends the provider's session too: the next sign-in asks for the account again.
    await app.page.getByRole('button', { name: 'サインアウト' }).click();
    await app.page.getByRole('button', { name: /sign me out/i }).click();
    await app.page.getByRole('button', { name: 'サインイン' }).waitFor({ timeout: WAIT_MS });
    await app.page.getByRole('button', { name: 'サインイン' }).click();
    await app.page.locator('input[name="login"]').waitFor({ timeout: WAIT_MS });
  }, 60_000);

  it('lets an editor save knowledge, and shows no insights', async () => {
    const { page } = await open('unused', { signInAs: 'editor' });
    expect(await whatTheyCanDo(page)).toEqual({
      name: 'Suzuki (knowledge editor)',
      saveAsKnowledge: 1,
      insightsLink: 0,
    });
  }, 60_000);

  it('shows a lead the insights page, and no knowledge saving', async () => {
    const { page } = await open('unused', { signInAs: 'lead' });
    expect(await whatTheyCanDo(page)).toEqual({
      name: 'Takahashi (service-desk lead)',
      saveAsKnowledge: 0,
      insightsLink: 1,
    });
    await page.getByRole('link', { name: 'インサイト' }).click();
    await page
      .getByRole('heading', { name: 'サービスデスク インサイト' })
      .waitFor({ timeout: WAIT_MS });
  }, 60_000);

  it('refuses an account the provider does not know at its own form', async () => {
    const { page } = await open('unused', { signInAs: 'editor' });
    await page.getByRole('button', { name: 'サインアウト' }).click();
    await page.getByRole('button', { name: /sign me out/i }).click();
    await signInAtProvider(page, 'someone-else');
    // The provider answers with its error page; no authorization code comes back to the app.
    await page
      .getByRole('heading', { name: /something went wrong/i })
      .waitFor({ timeout: WAIT_MS });
    expect(page.url()).not.toMatch(/[?&]code=/);
  }, 60_000);
});
