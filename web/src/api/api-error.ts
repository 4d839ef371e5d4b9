import { type ErrorCode, errorBodySchema } from '../../../functions/contract/errors.js';

/**
 * How a call to the API fails, for REST and streaming routes alike: `ApiError`, and `callApi`,
 * which turns every failure of a REST call into one. The codes are the contract's
 * (`functions/contract/errors.ts`) plus the few only the browser can observe.
 */

/**
 * Failures the browser sees without the API naming them: no answer at all (`network`), a stream
 * that broke off (`stream_cut`), a 2xx that is not an event stream (`not_event_stream`), a
 * response without the API's error body — a CDN or runtime page, or a code this build does not
 * know (`unrecognized_response`, explained by its status) —, a failed answer shown from history
 * (`stored_failure`) and an error that is not an API call's at all (`unknown`).
 */
export type ClientErrorCode =
  | 'network'
  | 'stream_cut'
  | 'not_event_stream'
  | 'unrecognized_response'
  | 'stored_failure'
  | 'unknown';

/** Every code the web app explains to staff: the API's and the browser's own. */
export type FailureCode = ErrorCode | ClientErrorCode;

/**
 * A refused or failed API call, carrying the server's `{ error: { code, message, field? } }`.
 * Status 0 means the request never reached the server (offline, DNS, CORS).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: FailureCode;
  /** With a validation error: the request field it is about (`subject`, `resolution.2`). */
  readonly field?: string;
  /** With 409 `already_published`: the ticket the inquiry was published as. */
  readonly issueId?: string;

  constructor(
    status: number,
    code: FailureCode,
    message: string,
    options?: { cause?: unknown; field?: string; issueId?: string },
  ) {
    super(message, options);
    this.status = status;
    this.code = code;
    if (options?.field !== undefined) this.field = options.field;
    if (options?.issueId !== undefined) this.issueId = options.issueId;
  }

  /**
   * Reads the error body of a non-2xx `response` if it is the contract's; otherwise keeps the
   * status only (`unrecognized_response`), which then decides the explanation.
   */
  static async fromResponse(response: Response): Promise<ApiError> {
    let body: unknown;
    try {
      body = JSON.parse(await response.text());
    } catch {
      body = undefined;
    }
    const parsed = errorBodySchema.safeParse(body);
    if (parsed.success) {
      const { code, message, field, issueId } = parsed.data.error;
      return new ApiError(response.status, code, message, {
        ...(field !== undefined ? { field } : {}),
        ...(issueId !== undefined ? { issueId } : {}),
      });
    }
    const message = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    return new ApiError(response.status, 'unrecognized_response', message);
  }
}

/**
 * One REST call to the API: a fetch that never got an answer becomes `ApiError` status 0, and a
 * non-2xx answer (other than `304 Not Modified`, which a conditional GET expects) becomes the
 * server's `{ error: { code, message } }` as an `ApiError`.
 */
export async function callApi(
  apiFetch: typeof fetch,
  url: string,
  init: RequestInit = {},
): Promise<Response> {
  let response: Response;
  try {
    response = await apiFetch(url, init);
  } catch (cause) {
    throw new ApiError(0, 'network', String(cause), { cause });
  }
  if (!response.ok && response.status !== 304) throw await ApiError.fromResponse(response);
  return response;
}
