import * as z from 'zod';
import { ATTACHMENT_ERROR_CODES } from './attachments.js';

/**
 * The error contract between the API function and its clients (the web app, the local server):
 * every code either side may see, the JSON body of a refused request, and the data of an SSE
 * `error` event. A code is declared here once; everything else names it through `ErrorCode`, so
 * a typo or a code nobody declared fails the typecheck, and a new code fails it too until the API
 * has a status for it (`functions/api/http.ts`) and the web app a message (`web/src/errors/`).
 * See docs/adr/0017-error-contract.md.
 */

/**
 * Codes of a request refused before the first byte: the `code` of a JSON error body. The API
 * chooses the HTTP status of each (`functions/api/http.ts`); the core's errors carry one of these.
 */
export const REQUEST_ERROR_CODES = [
  // 400: the body, a parameter or the target is wrong.
  'bad_request',
  'invalid_text',
  'empty_text',
  'invalid_cursor',
  'not_an_answer',
  'ticket_not_cited',
  'no_mail_draft',
  // 401 / 403: who is asking.
  'unauthorized',
  'not_a_knowledge_editor',
  'not_a_service_desk_lead',
  // 404 / 405: nothing there.
  'not_found',
  'turn_not_found',
  'inquiry_not_found',
  'method_not_allowed',
  // 409: the conversation's state does not allow it (now).
  'conflict',
  'not_latest_question',
  'answer_in_progress',
  'inquiry_not_solved',
  'already_published',
  'mail_draft_full',
  // 413 / 415 / 422 / 429: the request's size, encoding, idempotency key, or the user's budget.
  'too_large',
  'unsupported_media_type',
  'client_message_id_reused',
  'daily_budget_exceeded',
  // 5xx: nothing wrong with the request.
  'internal',
  'knowledge_capture_disabled',
  'store_unavailable',
  'knowledge_store_unavailable',
  // Attachments (`attachments.ts` says which status each has).
  ...ATTACHMENT_ERROR_CODES,
] as const;

/** A code of a refused request (the JSON error body). */
export type RequestErrorCode = (typeof REQUEST_ERROR_CODES)[number];

/**
 * Codes of an SSE `error` event: the stream had begun (the status is frozen at 200), so the
 * failure travels as the stream's last event. Some are shared with refused requests
 * (`store_unavailable`, `answer_in_progress`, `internal`).
 */
export const STREAM_ERROR_CODES = [
  // The model (ChatModelError carries the first four).
  'model_throttled',
  'model_unavailable',
  'model_stream_failed',
  'model_rejected',
  'model_output_truncated',
  'invalid_model_output',
  'empty_model_output',
  'guardrail_intervened',
  'timeout',
  // The stored conversation.
  'store_unavailable',
  'save_failed',
  'conversation_deleted',
  'question_superseded',
  'answer_in_progress',
  // Knowledge capture's draft stream.
  'draft_stopped',
  'internal',
] as const;

/** A code of an SSE `error` event. */
export type StreamErrorCode = (typeof STREAM_ERROR_CODES)[number];

/** Every code the API sends, in a body or an event: the closed set clients must explain. */
export type ErrorCode = RequestErrorCode | StreamErrorCode;

/** Every code the API sends, each once (the two lists share a few). */
export const ERROR_CODES: readonly ErrorCode[] = [
  ...new Set<ErrorCode>([...REQUEST_ERROR_CODES, ...STREAM_ERROR_CODES]),
];

/**
 * The body of every refused request: `{ error: { code, message, field? } }`. `message` is for
 * people (English, safe to show below 500); `field` names the request field a validation error
 * is about, as a dotted path (`title`, `resolution.2`), so a form can put the message beside it;
 * `issueId` comes with `already_published` and names the existing ticket.
 *
 * @example
 * const parsed = errorBodySchema.safeParse(await response.json());
 * if (parsed.success && parsed.data.error.code === 'already_published') showTicket(parsed.data.error.issueId);
 */
export const errorBodySchema = z.object({
  error: z.object({
    code: z.enum(REQUEST_ERROR_CODES),
    message: z.string(),
    field: z.string().min(1).optional(),
    issueId: z.string().optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** The data of an SSE `error` event (the chat stream and knowledge capture's draft stream). */
export const streamErrorSchema = z.object({
  code: z.enum(STREAM_ERROR_CODES),
  message: z.string(),
  retryable: z.boolean(),
});
export type StreamError = z.infer<typeof streamErrorSchema>;
