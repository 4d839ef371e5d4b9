/// <reference lib="dom" />
// Callbacks passed to page.evaluate/waitForFunction run in the browser.
import type { Browser, BrowserContext, Page } from 'playwright-core';

export interface AppPage {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Every `window.alert/confirm/prompt` the page tried to open (must stay empty). */
  readonly dialogs: string[];
  /** Bodies of every `POST /api/chat`, as sent by the browser. */
  readonly chatBodies: Record<string, unknown>[];
  /** Raw body and headers of every API request with a body (POST/PATCH). */
  readonly apiWrites: { body: string; headers: Record<string, string> }[];
  /**
   * Everything the Content-Security-Policy blocked or reported: each `securitypolicyviolation`
   * event of the page (also the ones a caught exception hides, such as a probing `new Function`)
   * and each console report. The harness fails a test that leaves any here — a deployment with
   * CSP reporting would see each one as an alarm, even when nothing would have run.
   */
  readonly cspViolations: string[];
}

/**
 * A fresh browser context signed in as `devUser` (local mode stores it in localStorage), with
 * Japanese as the browser language, on the app's start page. With `signInAs` (`AUTH_MODE=oidc`
 * and the local OpenID provider), it signs in at the provider's form as that dev account instead.
 */
export async function openApp(
  browser: Browser,
  baseUrl: string,
  devUser: string,
  options: { width?: number; height?: number; path?: string; signInAs?: string } = {},
): Promise<AppPage> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1100, height: options.height ?? 760 },
    locale: 'ja-JP',
  });
  await context.addInitScript((user) => {
    if (!localStorage.getItem('sda.devUser')) localStorage.setItem('sda.devUser', user);
  }, devUser);
  const cspViolations: string[] = [];
  // The event fires in the document for every violation, before any page script can miss it.
  await context.exposeBinding('__reportCspViolation', (_source, report: string) => {
    cspViolations.push(report);
  });
  await context.addInitScript(() => {
    const report = (window as unknown as { __reportCspViolation: (text: string) => void })
      .__reportCspViolation;
    document.addEventListener(
      'securitypolicyviolation',
      (event) =>
        void report(
          `securitypolicyviolation: ${event.effectiveDirective} blocked ${event.blockedURI || '(inline)'} at ${event.sourceFile}:${event.lineNumber}:${event.columnNumber} sample ${JSON.stringify(event.sample)}`,
        ),
      true,
    );
  });
  const page = await context.newPage();
  const dialogs: string[] = [];
  const chatBodies: Record<string, unknown>[] = [];
  const apiWrites: AppPage['apiWrites'] = [];
  // The local server sends CloudFront's CSP; Chromium also reports what it blocks on the console.
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text()))
      cspViolations.push(
        `${message.text()} (${message.location().url}:${message.location().lineNumber})`,
      );
  });
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on('request', (request) => {
    const body = request.postData();
    if (body !== null && new URL(request.url()).pathname.startsWith('/api/')) {
      apiWrites.push({ body, headers: request.headers() });
    }
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/chat') {
      chatBodies.push(JSON.parse(request.postData() ?? '{}') as Record<string, unknown>);
    }
  });
  await page.goto(`${baseUrl}${options.path ?? '/'}`);
  if (options.signInAs) await signInAtProvider(page, options.signInAs);
  await page.getByRole('textbox', { name: '問い合わせ内容' }).waitFor();
  return { context, page, dialogs, chatBodies, apiWrites, cspViolations };
}

/**
 * The sign-in screen's button, then the local OpenID provider's development form (any password),
 * and back to the app with an authorization code.
 */
export async function signInAtProvider(page: Page, login: string): Promise<void> {
  await page.getByRole('button', { name: 'サインイン' }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.locator('button[type="submit"]').click();
}
