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
   * Merge `token` events held side by side into one event. What is sent while the stream is idle
   * is written at once; what follows in the same turn of the event loop, or while the consumer
   * has not taken the previous chunk (backpressure), is held and written as one chunk when the
   * turn ends or the consumer pulls — with this option its adjacent tokens as one event. Nothing
   * overtakes what was sent before it. Off: one event per `token` sent (still one chunk per turn).
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
  /**
   * Sends one event: written at once when the stream is idle, else with the rest of the turn (a
   * `token` may merge with its neighbours). False once the stream is closed.
   */
  send(event: E): boolean;
  /** Sends an SSE comment (`: text`), as `send` does. Returns false once the stream is closed. */
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
      if (!turnOpen) flushHeld();
    },
    cancel() {
      stop();
    },
  });

  const padding = createStreamPadding(options.padding ?? { mode: 'off' });
  let heartbeatsSent = 0;
  // A heartbeat exists to be sent: it pushes out everything held, at once, and itself behind it.
  const heartbeat = setInterval(() => {
    if (closed) return;
    sealTokens();
    held += encodeComment('ping');
    flushHeld('heartbeat');
    heartbeatsSent++;
  }, options.heartbeatMs ?? 10_000);
  // Never keep a process (a test run, the local server) alive just for pings.
  (heartbeat as { unref?: () => void }).unref?.();

  const coalesce = options.coalesceTokens ?? true;

  // One chunk per turn of the event loop after the first: what is sent while the stream is idle
  // is written at once; what follows in the same turn (or while the consumer has not taken the
  // previous chunk: backpressure) is held and written as one chunk when the turn ends or the
  // consumer pulls. Every chunk is a write on the response's connection (a system call and a
  // chunk frame), and a chat sends half a dozen events in the turn its admission completes;
  // the first still leaves at once, the rest wait at most for the rest of the turn. Tokens
  // held side by side are merged into one event (~35 bytes of framing saved per fragment):
  // fragments decoded from one network read arrive in one turn.
  let held = '';
  let heldTokens = '';
  let turnOpen = false;

  function idle(): boolean {
    return held === '' && heldTokens === '' && !turnOpen && (controller.desiredSize ?? 0) > 0;
  }

  function openTurn(): void {
    if (turnOpen) return;
    turnOpen = true;
    setImmediate(endTurn);
  }

  function endTurn(): void {
    turnOpen = false;
    // Still backpressured: pull() writes it once the consumer is ready.
    if ((controller.desiredSize ?? 0) > 0) flushHeld();
  }

  const encodeToken = (content: string) => encodeChatEvent({ event: 'token', data: { content } });

  /** Held tokens become one event, behind what was held before them. */
  function sealTokens(): void {
    if (heldTokens === '') return;
    held += encodeToken(heldTokens);
    heldTokens = '';
  }

  function flushHeld(kind: WriteKind = 'event'): void {
    sealTokens();
    if (held === '') return;
    const text = held;
    held = '';
    enqueue(text, kind);
  }

  /** Writes `text` now when the stream is idle, else behind what is held. */
  function hold(text: string): boolean {
    if (closed) return false;
    if (idle()) enqueue(text, 'event');
    else {
      sealTokens();
      held += text;
    }
    openTurn();
    return true;
  }

  function sendToken(content: string): void {
    if (content === '') return;
    if (idle()) enqueue(encodeToken(content), 'event');
    else heldTokens += content;
    openTurn();
  }

  function stop(): void {
    closed = true;
    held = '';
    heldTokens = '';
    clearInterval(heartbeat);
  }

  function enqueue(text: string, kind: WriteKind): void {
    // No backpressure wait: events are small and paced by the model; the queue stays short, and
    // holding folds a turn's events into one chunk while the consumer is behind. A padding
    // travels in the same chunk as what it must push out.
    controller.enqueue(encoder.encode(text + padding.after(kind)));
  }

  return {
    stream,
    send(event) {
      if (closed) return false;
      if (event.event === 'token' && coalesce) {
        sendToken(event.data.content);
        return true;
      }
      return hold(encodeChatEvent(event));
    },
    comment: (text = '') => hold(encodeComment(text)),
    close() {
      if (closed) return;
      flushHeld();
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
