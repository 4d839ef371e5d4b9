import * as z from 'zod';

const errorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/**
 * The chat request failed before any event arrived: a non-2xx status with the API's JSON error
 * `{ error: { code, message } }`, or a 2xx response that is not an event stream.
 */
export class ChatHttpError extends Error {
  override readonly name = 'ChatHttpError';
  readonly status: number;
  /** The API's error code (`invalid_request`, `unauthorized`, …) or `http_<status>` without one. */
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
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
      return new ChatHttpError(response.status, parsed.data.error.code, parsed.data.error.message);
    }
    const message = `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    return new ChatHttpError(response.status, `http_${response.status}`, message);
  }
}
