/// <reference lib="dom" />
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { type LocalStack, startLocalStack } from '../../../local/start-local-stack.js';
import { TEST_TIMINGS, testTimingsEnvironment } from '../../support/test-timings.js';
import { buildWebApp } from './build-web-app.js';
import { launchChromium } from './launch-chromium.js';
import { type AppPage, openApp } from './open-app.js';

const ARTEFACTS = 'test-results/browser';
/**
 * Screenshots of the main states. They go to the test artefacts on every run, and refresh the
 * committed docs only on request (`UPDATE_SCREENSHOTS=1`), so a test run never dirties the tree.
 */
export const SCREENSHOTS =
  process.env.UPDATE_SCREENSHOTS === '1' ? 'docs/screenshots' : `${ARTEFACTS}/screenshots`;

/**
 * Registers the file's hooks — build the web app, start one local stack and one Chromium, close
 * each test's pages (screenshotting failures) — and returns what tests use. `functionEnvironment`
 * adds function settings for the file's stack (e.g. `SERVICE_DESK_LEADS`).
 */
export function registerBrowserHarness(
  options: {
    readonly functionEnvironment?: Readonly<Record<string, string>>;
    /** `npm start`'s variables for the file's stack (e.g. `AUTH_MODE: 'oidc'`). */
    readonly environment?: Readonly<Record<string, string>>;
  } = {},
) {
  let stack: LocalStack;
  let browser: Browser;
  const opened: AppPage[] = [];

  /** Each test is its own dev user, so conversations never leak between tests. */
  async function open(devUser: string, options?: Parameters<typeof openApp>[3]): Promise<AppPage> {
    const app = await openApp(browser, stack.url, devUser, options);
    opened.push(app);
    return app;
  }

  async function storedConversation(devUser: string, conversationId: string) {
    const response = await fetch(`${stack.url}/api/conversations/${conversationId}`, {
      headers: { 'x-dev-user': devUser },
    });
    return {
      status: response.status,
      body: (await response.json()) as { turns: { status: string; role: string }[] },
    };
  }

  function bedrock() {
    if (!stack.bedrock) throw new Error('browser tests need the local Bedrock endpoint');
    return stack.bedrock;
  }

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    mkdirSync(ARTEFACTS, { recursive: true });
    await buildWebApp();
    const dynamoDbEndpoint = inject('dynamoDbEndpoint');
    stack = await startLocalStack({
      port: 0,
      // The run's DynamoDB Local (tables of this file's own) and handler bundle, as the API
      // tests' stacks use: a JVM and a bundle per browser file cost seconds of CPU each.
      environment: {
        ...process.env,
        ...(dynamoDbEndpoint && { DYNAMODB_ENDPOINT: dynamoDbEndpoint }),
        ...options.environment,
      },
      ...(dynamoDbEndpoint && { tablePrefix: `browser-${randomUUID().slice(0, 8)}-` }),
      handlerBundle: inject('apiHandlerBundle'),
      // Fast, one fragment at a time: at 15–30 ms the ten browser files took 447 s, at 4–8 ms
      // 337 s (same load); alone, two runs each, 4–8 ms 105–127 s and 194–234 CPU-seconds,
      // 1–2 ms 95–96 s and 174–177 — Chromium draws fewer frames of a shorter stream. Tests that
      // look at an answer mid-stream hold a scripted stream (`pauseAfter`; chat-app's growing
      // advice) or script a delay.
      responderPacing: { minMs: 1, maxMs: 2 },
      functionEnvironment: {
        ...testTimingsEnvironment(TEST_TIMINGS),
        // The JSON request/chat lines and EMF metrics are checked in test/api/observability.test.ts.
        LOG_LEVEL: 'SILENT',
        METRICS: 'false',
        ...options.functionEnvironment,
      },
      log: () => {},
    });
    browser = await launchChromium();
  }, 120_000);

  afterEach(async (context) => {
    const violations = opened.flatMap((app) => app.cspViolations);
    for (const app of opened.splice(0)) {
      if (context.task.result?.state === 'fail') {
        await app.page
          .screenshot({ path: `${ARTEFACTS}/${context.task.name.replace(/\W+/g, '-')}.png` })
          .catch(() => {});
      }
      await app.context.close();
    }
    // Whatever the test checked, the app must work under the CSP it gets in AWS.
    if (violations.length > 0)
      throw new Error(`The page broke the Content-Security-Policy:\n${violations.join('\n')}`);
  });

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  return { open, storedConversation, bedrock, baseUrl: () => stack.url };
}
