/**
 * How a REST call to the API fails: `ApiError`, and `callApi`, which turns every failure into one.
 */

/**
 * A non-2xx answer of a conversation route, carrying the server's `{ error: { code, message } }`.
 * Status 0 means the request never reached the server (offline, DNS, CORS).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  /** With 409 `already_published`: the ticket the inquiry was published as. */
  readonly issueId?: string;

  constructor(
    status: number,
    code: string,
    message: string,
    options?: { cause?: unknown; issueId?: string },
  ) {
    super(message, options);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    if (options?.issueId !== undefined) this.issueId = options.issueId;
  }

  /** Reads the error body if it is the documented shape; otherwise keeps the status only. */
  static async fromResponse(response: Response): Promise<ApiError> {
    try {
      const body = (await response.json()) as {
        error?: { code?: unknown; message?: unknown; issueId?: unknown };
      };
      const code =
        typeof body.error?.code === 'string' ? body.error.code : `http_${response.status}`;
      const message = typeof body.error?.message === 'string' ? body.error.message : '';
      const issueId = typeof body.error?.issueId === 'string' ? body.error.issueId : undefined;
      return new ApiError(response.status, code, message, issueId ? { issueId } : {});
    } catch {
      return new ApiError(response.status, `http_${response.status}`, response.statusText);
    }
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
