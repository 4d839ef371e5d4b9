import { describe, expect, it } from 'vitest';
import { createApiFetch } from '../../../web/src/api/create-api-fetch.js';
import { sha256Hex } from '../../../web/src/api/sha256-hex.js';
import { createLocalSession } from '../../../web/src/auth/create-local-session.js';

/** A fetch double that records what would have gone over the wire. */
function recordingFetch() {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetchDouble = (async (url: string | URL | Request, init: RequestInit = {}) => {
    calls.push({ url: String(url), init });
    return new Response('{}');
  }) as typeof fetch;
  return { calls, fetchDouble };
}

describe('createApiFetch', () => {
  it('adds the identity and the SHA-256 of the exact body to a write', async () => {
    const { calls, fetchDouble } = recordingFetch();
    const apiFetch = createApiFetch(createLocalSession('tanaka'), fetchDouble);
    const body = JSON.stringify({ message: 'プリンターの設置依頼をしたい' });
    await apiFetch('/api/chat', {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    const headers = new Headers(calls[0]?.init.headers);
    expect(headers.get('x-dev-user')).toBe('tanaka');
    expect(headers.get('x-amz-content-sha256')).toBe(await sha256Hex(body));
    expect(headers.get('content-type')).toBe('application/json');
    expect(calls[0]?.init.body).toBe(body);
  });

  it('sends no content hash without a body', async () => {
    const { calls, fetchDouble } = recordingFetch();
    await createApiFetch(createLocalSession('tanaka'), fetchDouble)('/api/conversations');
    expect(new Headers(calls[0]?.init.headers).has('x-amz-content-sha256')).toBe(false);
  });

  it('refuses a body it cannot hash instead of sending it unsigned', async () => {
    const { calls, fetchDouble } = recordingFetch();
    const apiFetch = createApiFetch(createLocalSession('tanaka'), fetchDouble);
    await expect(apiFetch('/api/chat', { method: 'POST', body: new Blob(['x']) })).rejects.toThrow(
      TypeError,
    );
    expect(calls).toHaveLength(0);
  });
});
