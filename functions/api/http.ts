import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { z } from 'zod';
import type { Owner } from '../chat/ports.js';

/**
 * HTTP plumbing of the API function: the request a route sees, typed errors with a status, JSON
 * responses and body validation.
 */

/** What a route sees of a Function URL request. */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly rawBody: string;
  readonly owner: Owner;
  /** A knowledge editor (ADR 0011): the Cognito group locally the dev-user list decides. */
  readonly canPublishKnowledge: boolean;
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

/** `application/json`, optionally with parameters (`; charset=utf-8`); media types are case-insensitive. */
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

/**
 * The body as JSON: a 415 unless it is declared `application/json`, a 400 unless it parses.
 *
 * The content type is a CSRF defence, not pedantry: a page on any origin may POST `text/plain`,
 * a form or multipart to us without a CORS preflight (a "simple request"), and a body that
 * happens to be JSON would be accepted. `application/json` cannot be sent cross-origin without
 * a preflight, which the Function URL (no CORS configured) and the local server never grant.
 */
export function parseJsonBody(request: ApiRequest): unknown {
  if (!JSON_MEDIA_TYPE.test(request.headers['content-type']?.trim() ?? ''))
    throw new HttpError(
      415,
      'unsupported_media_type',
      'Request body must be sent as Content-Type: application/json',
    );
  if (request.rawBody.trim() === '')
    throw new HttpError(400, 'bad_request', 'Request body must be JSON');
  try {
    return JSON.parse(request.rawBody);
  } catch {
    throw new HttpError(400, 'bad_request', 'Request body is not valid JSON');
  }
}

/** An error with an HTTP status, raised before the first byte of a response. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HttpError';
  }
}

const CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  404: 'not_found',
  409: 'conflict',
  413: 'too_large',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
};

/**
 * Maps any error to a status and a client-safe body. Errors that carry a 4xx `statusCode` (ours
 * and the store's typed errors) show their message; so does a typed 503 (`store_unavailable`),
 * which adds `Retry-After`. Everything else is a 500 without internals.
 */
export function toErrorResponseBody(error: unknown): {
  statusCode: number;
  body: { error: { code: string; message: string; issueId?: string } };
  headers: Record<string, string>;
} {
  const statusCode = (error as { statusCode?: unknown })?.statusCode;
  const retryAfter = (error as { retryAfterSeconds?: unknown })?.retryAfterSeconds;
  if (statusCode === 503 && typeof retryAfter === 'number') {
    const { code, message } = error as { code: string; message: string };
    return {
      statusCode,
      body: { error: { code, message } },
      headers: { 'retry-after': String(retryAfter) },
    };
  }
  // 501: a feature this deployment was not configured for (knowledge capture without a bucket).
  if (
    typeof statusCode === 'number' &&
    ((statusCode >= 400 && statusCode < 500) || statusCode === 501)
  ) {
    // Ours and the store's typed errors may name a precise code (`invalid_cursor`, `client_message_id_reused`).
    const own = (error as { code?: unknown }).code;
    const code = typeof own === 'string' ? own : (CODES[statusCode] ?? 'bad_request');
    // A conflict with an existing ticket names it, so the page can show which one.
    const issueId = (error as { issueId?: unknown }).issueId;
    return {
      statusCode,
      body: {
        error: {
          code,
          message: (error as Error).message,
          ...(typeof issueId === 'string' ? { issueId } : {}),
        },
      },
      // A 429 over the daily budget says when it resets.
      headers: typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {},
    };
  }
  return {
    statusCode: 500,
    body: { error: { code: 'internal', message: 'Internal error. Please try again later.' } },
    headers: {},
  };
}

/** The response shape middy's streamify mode turns into a Function URL prelude + body. */
export interface HttpResponse {
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  readonly body: string | ReadableStream<Uint8Array>;
}

export function jsonResponse(
  statusCode: number,
  value: unknown,
  headers: Record<string, string> = {},
): HttpResponse {
  return {
    statusCode,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      ...headers,
    },
    body: value === undefined ? '' : JSON.stringify(value),
  };
}

/** Validates a parsed body; a too-long string is a 413, any other problem a 400 naming the field. */
export function validateBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') || 'body';
  const message = `${field}: ${issue?.message ?? 'invalid'}`;
  if (issue?.code === 'too_big') throw new HttpError(413, 'too_large', message);
  // A contract rule may name its own code (the user-text rules: `invalid_text`, `empty_text`).
  const code = issue?.code === 'custom' ? (issue.params as { code?: unknown })?.code : undefined;
  throw new HttpError(400, typeof code === 'string' ? code : 'bad_request', message);
}
