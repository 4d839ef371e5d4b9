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
