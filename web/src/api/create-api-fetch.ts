import type { AuthSession } from '../auth/auth-session.js';
import { sha256Hex } from './sha256-hex.js';

/**
 * A `fetch` that adds the caller's identity and, for any string body, `x-amz-content-sha256`
 * computed over the exact bytes sent (CloudFront OAC to a Function URL requires it). Both the
 * REST calls and the SSE reader use it, so no request can forget either header.
 */
export function createApiFetch(
  session: AuthSession,
  baseFetch: typeof fetch = fetch,
): typeof fetch {
  return async (input, init = {}) => {
    const headers = new Headers(init.headers);
    for (const [name, value] of Object.entries(await session.headers())) headers.set(name, value);
    if (typeof init.body === 'string') {
      headers.set('x-amz-content-sha256', await sha256Hex(init.body));
    } else if (init.body != null) {
      // Any other body type would be sent unsigned and rejected at the edge; fail loudly here.
      throw new TypeError('API request bodies must be strings so they can be hashed');
    }
    return baseFetch(input, { ...init, headers });
  };
}
