/**
 * Response headers of every SSE response.
 * - `no-transform` keeps CloudFront and other proxies from compressing or rewriting the stream;
 *   no `content-encoding` either, because a compressor buffers until it has a block to emit.
 * - `x-accel-buffering: no` turns off response buffering in nginx-style proxies.
 *
 * @example
 * return { statusCode: 200, headers: { ...SSE_RESPONSE_HEADERS }, body: sse.stream };
 */
export const SSE_RESPONSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
} as const;
