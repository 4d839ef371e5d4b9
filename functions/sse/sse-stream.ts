import type { StreamEvent } from '../contract/chat-events.js';
import { encodeChatEvent, encodeComment } from './sse-encoding.js';
import {
  createStreamPadding,
  type StreamPaddingOptions,
  type WriteKind,
} from './stream-padding.js';

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
   * Coalesce `token` events without delaying them: a token is written at once when the stream is
   * idle; tokens that arrive while that write is still pending (the consumer has not taken the
   * previous chunk: backpressure) or later in the same turn of the event loop are merged into one
   * event, written when the turn ends or the consumer pulls. Any other event, a heartbeat and
   * `close()` write pending text first, so nothing overtakes it. Off: one event per `token` sent.
   * @default true
   */
  readonly coalesceTokens?: boolean;
  /**
   * Padding comments after writes, for a front end that holds small writes back (see
   * `stream-padding.ts`).
   * @default { mode: 'off' } (byte-identical to no padding)
   */
  readonly padding?: StreamPaddingOptions;
}

/** An SSE response body and the only ways to write to it; `E`: the events of its stream. */
export interface SseStream<E extends StreamEvent = StreamEvent> {
  /** The response body; hand it to the Lambda streaming response (middy streamify). */
  readonly stream: ReadableStream<Uint8Array>;
  /** Writes one event (a coalesced `token` may follow later). False once the stream is closed. */
  send(event: E): boolean;
  /** Writes an SSE comment (`: text`). Returns false once the stream is closed. */
  comment(text?: string): boolean;
  /** Stops the heartbeat and ends the body. Idempotent. */
  close(): void;
  readonly closed: boolean;
  /** Heartbeat comments written so far (the `HeartbeatsSent` metric). */
  readonly heartbeatsSent: number;
  /** Bytes of padding comments written so far (0 with padding off). */
  readonly paddingBytes: number;
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
    // The consumer took what was queued (middy's pipeline awaits each write's drain before it
    // reads again): text merged while it was busy goes out now.
    pull() {
      if (!turnOpen) flushPending();
    },
    cancel() {
      stop();
    },
  });

  const padding = createStreamPadding(options.padding ?? { mode: 'off' });
  let heartbeatsSent = 0;
  const heartbeat = setInterval(() => {
    flushPending();
    if (write(encodeComment('ping'), 'heartbeat')) heartbeatsSent++;
  }, options.heartbeatMs ?? 10_000);
  // Never keep a process (a test run, the local server) alive just for pings.
  (heartbeat as { unref?: () => void }).unref?.();

  const writeToken = (content: string) =>
    write(encodeChatEvent({ event: 'token', data: { content } }));
  const coalesce = options.coalesceTokens ?? true;

  // Coalescing state: text not yet written, and whether a token was written (or text held) in
  // the current turn of the event loop. Fragments decoded from one network read all arrive in
  // one turn (the SDK's event-stream iterator resolves them in microtasks); writing the first at
  // once and the rest together at the turn's end costs no delay a reader could see, yet saves
  // the ~35 bytes of framing per fragment.
  let pending = '';
  let turnOpen = false;

  function sendToken(content: string): void {
    if (content === '') return;
    if (pending === '' && !turnOpen && (controller.desiredSize ?? 0) > 0) {
      writeToken(content);
    } else {
      pending += content;
    }
    if (!turnOpen) {
      turnOpen = true;
      setImmediate(endTurn);
    }
  }

  function endTurn(): void {
    turnOpen = false;
    // Still backpressured: pull() writes it once the consumer is ready.
    if ((controller.desiredSize ?? 0) > 0) flushPending();
  }

  function flushPending(): void {
    if (pending === '') return;
    const content = pending;
    pending = '';
    writeToken(content);
  }

  function stop(): void {
    closed = true;
    pending = '';
    clearInterval(heartbeat);
  }

  function write(text: string, kind: WriteKind = 'event'): boolean {
    if (closed) return false;
    // No backpressure wait: events are small and paced by the model; the queue stays short, and
    // coalescing folds tokens into one chunk while the consumer is behind. A padding travels in
    // the same chunk as what it must push out.
    controller.enqueue(encoder.encode(text + padding.after(kind)));
    return true;
  }

  return {
    stream,
    send(event) {
      if (closed) return false;
      if (event.event === 'token') {
        if (coalesce) sendToken(event.data.content);
        else return write(encodeChatEvent(event));
        return true;
      }
      flushPending();
      return write(encodeChatEvent(event));
    },
    comment: (text = '') => {
      flushPending();
      return write(encodeComment(text));
    },
    close() {
      if (closed) return;
      flushPending();
      stop();
      controller.close();
    },
    get closed() {
      return closed;
    },
    get heartbeatsSent() {
      return heartbeatsSent;
    },
    get paddingBytes() {
      return padding.bytesAdded;
    },
  };
}
