import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Owner } from '../chat/owner.js';
import { HttpError } from './http-error.js';

/** What a route sees of a Function URL request. */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly rawBody: string;
  readonly owner: Owner;
  readonly remainingTimeMs: () => number;
}

/** Larger bodies are refused before parsing (a chat message is at most 4,000 characters). */
export const MAX_BODY_BYTES = 64 * 1024;

export function rawBodyOf(event: APIGatewayProxyEventV2): string {
  if (!event.body) return '';
  const body = event.isBase64Encoded
    ? Buffer.from(event.body, 'base64').toString('utf8')
    : event.body;
  if (Buffer.byteLength(body) > MAX_BODY_BYTES)
    throw new HttpError(413, 'too_large', 'Request body is too large');
  return body;
}

/** The body as JSON, or a 400 that says so. */
export function parseJsonBody(request: ApiRequest): unknown {
  if (request.rawBody.trim() === '')
    throw new HttpError(400, 'bad_request', 'Request body must be JSON');
  try {
    return JSON.parse(request.rawBody);
  } catch {
    throw new HttpError(400, 'bad_request', 'Request body is not valid JSON');
  }
}
