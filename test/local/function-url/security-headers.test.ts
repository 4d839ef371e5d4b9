import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentSecurityPolicy } from '../../../lib/security-headers.js';
import type { LocalStack } from '../../../local/start-local-stack.js';
import { startTestStack } from '../../support/start-test-stack.js';

let stack: LocalStack;
let webDir: string;
beforeAll(async () => {
  webDir = await mkdtemp(join(tmpdir(), 'web-dist-'));
  await writeFile(join(webDir, 'index.html'), '<!doctype html><title>app</title>');
  stack = await startTestStack({ webDir });
});
afterAll(async () => {
  await stack?.stop();
  await rm(webDir, { recursive: true, force: true });
});

describe('the local server sends the security headers CloudFront sends', () => {
  it.each([
    ['the app shell', 'GET', '/'],
    ['a client-side route', 'GET', '/c/01JZZZZZZZZZZZZZZZZZZZZZZZ'],
    ['/config.json', 'GET', '/config.json'],
    ['a missing file', 'GET', '/missing.js'],
    ['an API response', 'GET', '/api/conversations'],
    ['an API error', 'GET', '/api/nope'],
  ])('on %s', async (_name, method, path) => {
    const response = await fetch(new URL(path, stack.url), { method });
    await response.arrayBuffer();
    // The same definition as the CDK policy, with no Cognito origins (local sign-in has none).
    expect(response.headers.get('content-security-policy')).toBe(
      contentSecurityPolicy({ connectSources: [], formActions: [] }),
    );
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    // Plain http://localhost: HSTS would be ignored, or pin localhost to HTTPS for a year.
    expect(response.headers.get('strict-transport-security')).toBeNull();
  });

  it.each(['/%', '/%zz', '/assets/%E0%A4%A.js'])(
    'answers 400, not 500, to the malformed path %s',
    async (path) => {
      const response = await fetch(`${stack.url}${path}`);
      expect(response.status).toBe(400);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    },
  );
});
