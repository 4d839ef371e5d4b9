import type { ChatEvent } from '../contract/chat-events.js';
import { createTokenBatcher, type TokenBatchOptions } from './create-token-batcher.js';
import { encodeChatEvent } from './encode-chat-event.js';
import { encodeComment } from './encode-comment.js';

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
 * void runChat({ emit: (event) => sse.send(event) }).finally(() => sse.close());
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
