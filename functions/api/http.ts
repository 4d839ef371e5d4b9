import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { z } from 'zod';
import { RequestRefusedError } from '../chat/errors.js';
import type { Owner } from '../chat/ports.js';
import type { ErrorBody, RequestErrorCode } from '../contract/errors.js';
import { USER_TEXT_ERROR_CODES } from '../contract/user-text.js';

/**
 * HTTP plumbing of the API function: the request a route sees, the API's own refusals and the
 * one map from error code to status, JSON responses and body validation.
 */

/** What a route sees of a Function URL request. */
export interface ApiRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly query: Readonly<Record<string, string | undefined>>;
  readonly rawBody: string;
  /** The body's bytes as sent (a Function URL hands binary bodies over base64-encoded). */
  readonly bodyBytes: Buffer;
  readonly owner: Owner;
  /** A knowledge editor (ADR 0011): the Cognito group locally the dev-user list decides. */
  readonly canPublishKnowledge: boolean;
  /** A service-desk lead (issue #28): the Cognito group, locally the dev-user list decides. */
  readonly canViewInsights: boolean;
  readonly remainingTimeMs: () => number;
}

/** Larger bodies are refused before parsing (a chat message is at most 4,000 characters). */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The body's bytes, refused (413) over `maxBytes`: {@link MAX_BODY_BYTES} unless the route
 * allows more (an attachment upload).
 */
export function bodyBytesOf(event: APIGatewayProxyEventV2, maxBytes = MAX_BODY_BYTES): Buffer {
  if (!event.body) return Buffer.alloc(0);
  const bytes = Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.length > maxBytes) throw new HttpError('too_large', 'Request body is too large');
  return bytes;
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
      'unsupported_media_type',
      'Request body must be sent as Content-Type: application/json',
    );
  if (request.rawBody.trim() === '')
    throw new HttpError('bad_request', 'Request body must be JSON');
  try {
    return JSON.parse(request.rawBody);
  } catch {
    throw new HttpError('bad_request', 'Request body is not valid JSON');
  }
}

/**
 * A request the API refuses by itself (a missing sign-in, an unknown route, a malformed body):
 * the API-level sibling of the core's errors, rendered the same way. `field` names the request
 * field a validation error is about.
 *
 * @example
 * throw new HttpError('bad_request', 'limit must be 1-100', { field: 'limit' });
 */
export class HttpError extends RequestRefusedError {
  readonly field?: string;
  constructor(
    readonly code: RequestErrorCode,
    message: string,
    options?: { cause?: unknown; field?: string },
  ) {
    super(message, options);
    this.name = 'HttpError';
    if (options?.field !== undefined) this.field = options.field;
  }

  /** The status this error is answered with (`HTTP_STATUS_BY_CODE`). */
  get statusCode(): number {
    return HTTP_STATUS_BY_CODE[this.code];
  }
}

/**
 * The HTTP status of each code of a refused request: the one place statuses are chosen. Typed
 * over the whole set, so a code added to the contract fails the typecheck until it has one.
 */
export const HTTP_STATUS_BY_CODE = {
  bad_request: 400,
  invalid_text: 400,
  empty_text: 400,
  invalid_cursor: 400,
  not_an_answer: 400,
  ticket_not_cited: 400,
  no_mail_draft: 400,
  unauthorized: 401,
  not_a_knowledge_editor: 403,
  not_a_service_desk_lead: 403,
  not_found: 404,
  turn_not_found: 404,
  inquiry_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  not_latest_question: 409,
  answer_in_progress: 409,
  inquiry_not_solved: 409,
  already_published: 409,
  mail_draft_full: 409,
  too_large: 413,
  unsupported_media_type: 415,
  client_message_id_reused: 422,
  daily_budget_exceeded: 429,
  internal: 500,
  // A feature this deployment was not configured for (knowledge capture without a bucket).
  knowledge_capture_disabled: 501,
  store_unavailable: 503,
  knowledge_store_unavailable: 503,
  attachment_type_refused: 415,
  attachment_too_large: 413,
  image_too_many_pixels: 413,
  corrupt_image: 400,
  text_not_decodable: 400,
  too_many_attachments: 400,
  attachment_not_found: 404,
} as const satisfies Record<RequestErrorCode, number>;

/**
 * Maps any error to a status and a client-safe body. The core's errors and `HttpError` show
 * their message (they were written for the caller) with the status of their code, and
 * `Retry-After` when they say when to come back (an outage, the daily budget). Everything else
 * is a 500 without internals.
 */
export function toErrorResponseBody(error: unknown): {
  statusCode: number;
  body: ErrorBody;
  headers: Record<string, string>;
} {
  if (!(error instanceof RequestRefusedError)) {
    return {
      statusCode: HTTP_STATUS_BY_CODE.internal,
      body: { error: { code: 'internal', message: 'Internal error. Please try again later.' } },
      headers: {},
    };
  }
  const { code, message } = error;
  // A conflict with an existing ticket names it, so the page can show which one.
  const issueId = (error as { issueId?: unknown }).issueId;
  const field = (error as { field?: unknown }).field;
  const retryAfter = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return {
    statusCode: HTTP_STATUS_BY_CODE[code],
    body: {
      error: {
        code,
        message,
        ...(typeof field === 'string' ? { field } : {}),
        ...(typeof issueId === 'string' ? { issueId } : {}),
      },
    },
    headers: typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {},
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

/**
 * Validates a parsed body; a too-long string is a 413, any other problem a 400. Both name the
 * field in `field` (a dotted path: `title`, `resolution.2`; absent when the body as a whole is
 * wrong) and start the message with it (`body` for the whole).
 */
export function validateBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const path = issue?.path.join('.') ?? '';
  const message = `${path || 'body'}: ${issue?.message ?? 'invalid'}`;
  const naming = path ? { field: path } : {};
  if (issue?.code === 'too_big') throw new HttpError('too_large', message, naming);
  // A contract rule may name its own code (the user-text rules: `invalid_text`, `empty_text`).
  const code = issue?.code === 'custom' ? (issue.params as { code?: unknown })?.code : undefined;
  throw new HttpError(isUserTextCode(code) ? code : 'bad_request', message, naming);
}

/** Codes a contract rule may name in `params.code`. */
const USER_TEXT_CODES: ReadonlySet<unknown> = new Set([
  ...Object.values(USER_TEXT_ERROR_CODES),
  'too_many_attachments',
]);
function isUserTextCode(code: unknown): code is RequestErrorCode {
  return USER_TEXT_CODES.has(code);
}
