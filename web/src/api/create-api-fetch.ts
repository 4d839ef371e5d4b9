import type { AuthSession } from '../auth/auth-session.js';
import { sha256Hex } from './sha256-hex.js';

/**
 * A `fetch` that adds the caller's identity and, for any body, `x-amz-content-sha256` computed
 * over the exact bytes sent (CloudFront OAC to a Function URL requires it). Both the REST calls
 * and the SSE reader use it, so no request can forget either header. A body is a string (JSON)
 * or bytes — a `Blob` (an attachment), an `ArrayBuffer` or a typed array — which are read once,
 * hashed, and sent as those same bytes.
 */
export function createApiFetch(
  session: AuthSession,
  baseFetch: typeof fetch = fetch,
): typeof fetch {
  return async (input, init = {}) => {
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(await session.headers())) headers.set(name, value);
    const body = await toHashableBody(init.body);
    if (body !== undefined) {
      headers.set('x-amz-content-sha256', await sha256Hex(body));
      if (init.body instanceof Blob && init.body.type && !headers.has('content-type'))
        headers.set('content-type', init.body.type);
    }
    return baseFetch(input, { ...init, headers, ...(body !== undefined ? { body } : {}) });
  };
}

/** The body as the exact string or bytes that go on the wire; `undefined` without a body. */
async function toHashableBody(
  body: BodyInit | null | undefined,
): Promise<string | Uint8Array<ArrayBuffer> | undefined> {
  if (body == null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof Blob) return new Uint8Array(await body.arrayBuffer());
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  // A copy of just the viewed bytes (the view may share a larger buffer).
  if (ArrayBuffer.isView(body))
    return Uint8Array.from(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
  // A form or a stream would be sent unsigned and rejected at the edge; fail loudly here.
  throw new TypeError('API request bodies must be strings or bytes so they can be hashed');
}
