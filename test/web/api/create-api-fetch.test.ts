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

  it('hashes and sends the exact bytes of a binary body, typed as the Blob says', async () => {
    const { calls, fetchDouble } = recordingFetch();
    const apiFetch = createApiFetch(createLocalSession('tanaka'), fetchDouble);
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 255]);
    await apiFetch('/api/attachments', {
      method: 'POST',
      body: new Blob([bytes], { type: 'image/png' }),
    });
    const headers = new Headers(calls[0]?.init.headers);
    expect(headers.get('x-amz-content-sha256')).toBe(await sha256Hex(bytes));
    expect(headers.get('content-type')).toBe('image/png');
    expect(calls[0]?.init.body).toEqual(bytes);
  });

  it('hashes only the viewed bytes of a typed array', async () => {
    const { calls, fetchDouble } = recordingFetch();
    const apiFetch = createApiFetch(createLocalSession('tanaka'), fetchDouble);
    const view = new Uint8Array([1, 2, 3, 4, 5]).subarray(1, 3);
    await apiFetch('/api/attachments', { method: 'POST', body: view });
    const headers = new Headers(calls[0]?.init.headers);
    expect(headers.get('x-amz-content-sha256')).toBe(await sha256Hex(new Uint8Array([2, 3])));
    expect(calls[0]?.init.body).toEqual(new Uint8Array([2, 3]));
  });

  it.each([
    ['a form', () => new FormData()],
    ['a stream', () => new ReadableStream()],
  ])('refuses %s, which it cannot hash, instead of sending it unsigned', async (_name, body) => {
    const { calls, fetchDouble } = recordingFetch();
    const apiFetch = createApiFetch(createLocalSession('tanaka'), fetchDouble);
    await expect(apiFetch('/api/chat', { method: 'POST', body: body() })).rejects.toThrow(
      TypeError,
    );
    expect(calls).toHaveLength(0);
  });
});
