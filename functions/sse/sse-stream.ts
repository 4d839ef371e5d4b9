import type { ChatEvent } from '../contract/chat-events.js';
import { encodeChatEvent, encodeComment } from './sse-encoding.js';

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

/** Options of {@link createSseStream}. */
export interface SseStreamOptions {
  /**
   * Interval of `: ping` comments. CloudFront's default origin read timeout is 30 s, so this
   * must stay well below it.
   * @default 10_000
   */
  readonly heartbeatMs?: number;
  /**
   * Merge consecutive `token` events into fewer, larger ones (by size and time; see
   * {@link createTokenBatcher}). Any other event, and `close()`, sends pending text first.
   * Off by default: then each `token` sent is one event, as ARCHITECTURE.md describes.
   * @default undefined (off)
   */
  readonly tokenBatch?: TokenBatchOptions;
}

/** An SSE response body and the only ways to write to it. */
export interface SseStream {
  /** The response body; hand it to the Lambda streaming response (middy streamify). */
  readonly stream: ReadableStream<Uint8Array>;
  /** Writes one chat event (a batched `token` may follow later). False once the stream is closed. */
  send(event: ChatEvent): boolean;
  /** Writes an SSE comment (`: text`). Returns false once the stream is closed. */
  comment(text?: string): boolean;
  /** Stops the heartbeat and ends the body. Idempotent. */
  close(): void;
  readonly closed: boolean;
}

/**
 * Creates an SSE response body with a heartbeat. The heartbeat starts now and stops on `close()`
 * or when the consumer cancels the body. The body never errors: failures after the first byte
 * travel as an `error` event, sent by the caller before `close()`.
 *
 * @example
 * const sse = createSseStream();
 * void streamChat(begun, (event) => sse.send(event), dependencies).finally(() => sse.close());
 * return { statusCode: 200, headers: { ...SSE_RESPONSE_HEADERS }, body: sse.stream };
 */
export function createSseStream(options: SseStreamOptions = {}): SseStream {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;

  const stream = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
    },
    cancel() {
      stop();
    },
  });

  const heartbeat = setInterval(() => write(encodeComment('ping')), options.heartbeatMs ?? 10_000);
  // Never keep a process (a test run, the local server) alive just for pings.
  (heartbeat as { unref?: () => void }).unref?.();

  const batcher =
    options.tokenBatch === undefined
      ? undefined
      : createTokenBatcher({
          ...options.tokenBatch,
          send: (content) => write(encodeChatEvent({ event: 'token', data: { content } })),
        });

  function stop(): void {
    closed = true;
    clearInterval(heartbeat);
    batcher?.close(); // only clears its timer: nothing can be written any more
  }

  function write(text: string): boolean {
    if (closed) return false;
    // No backpressure wait: events are small and paced by the model; the queue stays short.
    controller.enqueue(encoder.encode(text));
    return true;
  }

  return {
    stream,
    send(event) {
      if (closed) return false;
      if (batcher !== undefined && event.event === 'token') {
        batcher.add(event.data.content);
        return true;
      }
      batcher?.flush();
      return write(encodeChatEvent(event));
    },
    comment: (text = '') => write(encodeComment(text)),
    close() {
      if (closed) return;
      batcher?.close();
      stop();
      controller.close();
    },
    get closed() {
      return closed;
    },
  };
}

/** Options of {@link createTokenBatcher}. */
export interface TokenBatchOptions {
  /**
   * Send as soon as this many UTF-16 units are pending. Each SSE event costs ~35 bytes of
   * framing, so 80 keeps the wire at ≤ 1.5 bytes per advice byte even for ASCII text.
   * @default 80
   */
  readonly minChars?: number;
  /**
   * Send what is pending at the latest this long after it arrived, so text never waits for more.
   * @default 50
   */
  readonly maxDelayMs?: number;
}

/** Collects advice deltas into fewer, larger `token` events. */
export interface TokenBatcher {
  add(content: string): void;
  /** Sends what is pending now (before any other event, to keep the order). */
  flush(): void;
  /** Flushes and stops the timer. */
  close(): void;
}

/**
 * Batches streamed text by size and by time: the per-event framing dominates the wire when
 * upstream fragments are a few characters each, while a 50 ms delay is not visible to a reader.
 *
 * @example
 * const batcher = createTokenBatcher({ send: (content) => sse.send({ event: 'token', data: { content } }) });
 */
export function createTokenBatcher(
  options: TokenBatchOptions & { readonly send: (content: string) => void },
): TokenBatcher {
  const minChars = options.minChars ?? 80;
  const maxDelayMs = options.maxDelayMs ?? 50;
  let pending = '';
  let timer: ReturnType<typeof setTimeout> | undefined;

  function flush(): void {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (pending === '') return;
    const content = pending;
    pending = '';
    options.send(content);
  }

  return {
    add(content) {
      if (content === '') return;
      pending += content;
      if (pending.length >= minChars) flush();
      else if (timer === undefined) {
        timer = setTimeout(flush, maxDelayMs);
        (timer as { unref?: () => void }).unref?.();
      }
    },
    flush,
    close: flush,
  };
}
