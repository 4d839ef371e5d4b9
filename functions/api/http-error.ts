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
  429: 'too_many_requests',
};

/**
 * Maps any error to a status and a client-safe body. Errors that carry a 4xx `statusCode` (ours
 * and the store's typed errors) show their message; everything else is a 500 without internals.
 */
export function toErrorResponseBody(error: unknown): {
  statusCode: number;
  body: { error: { code: string; message: string } };
} {
  const statusCode = (error as { statusCode?: unknown })?.statusCode;
  if (typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500) {
    const code = error instanceof HttpError ? error.code : (CODES[statusCode] ?? 'bad_request');
    return { statusCode, body: { error: { code, message: (error as Error).message } } };
  }
  return {
    statusCode: 500,
    body: { error: { code: 'internal', message: 'Internal error. Please try again later.' } },
  };
}
