import * as z from 'zod';

const errorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), issueId: z.string().optional() }),
});

/**
 * The chat request failed before any event arrived: a non-2xx status with the API's JSON error
 * `{ error: { code, message } }`, or a 2xx response that is not an event stream.
 */
export class ChatHttpError extends Error {
  override readonly name = 'ChatHttpError';
  readonly status: number;
  /** The API's error code (`invalid_request`, `unauthorized`, …) or `http_<status>` without one. */
  readonly code: string;
  /** With 409 `already_published` (knowledge capture): the ticket the inquiry was published as. */
  readonly issueId?: string;

  constructor(status: number, code: string, message: string, issueId?: string) {
    super(message);
    this.status = status;
    this.code = code;
    if (issueId !== undefined) this.issueId = issueId;
  }

  /** Reads the error body of `response`; tolerates bodies that are not the API's JSON. */
  static async fromResponse(response: Response): Promise<ChatHttpError> {
    let body: unknown;
    try {
      body = JSON.parse(await response.text());
    } catch {
      body = undefined;
    }
    const parsed = errorBodySchema.safeParse(body);
    if (parsed.success) {
      const { code, message, issueId } = parsed.data.error;
      return new ChatHttpError(response.status, code, message, issueId);
    }
    const message = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    return new ChatHttpError(response.status, `http_${response.status}`, message);
  }
}
