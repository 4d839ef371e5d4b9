import type { StreamEvent, StreamEventData } from '../contract/chat-events.js';
import {
  createSseStream,
  SSE_RESPONSE_HEADERS,
  type SseStream,
  type SseStreamOptions,
} from './sse-stream.js';

/** A streaming route's response: status 200, the SSE headers and the body (the API's `HttpResponse`). */
export interface SseResponse {
  readonly statusCode: 200;
  readonly headers: Record<string, string>;
  readonly body: ReadableStream<Uint8Array>;
}

/** Options of {@link sseResponse}: the stream's (heartbeat, padding, token coalescing) and its failure. */
export interface SseResponseOptions extends SseStreamOptions {
  /**
   * Sent when the producer throws and no `result` or `error` went out yet, so the page is told
   * the stream failed instead of seeing it end mid-answer.
   */
  readonly failureEvent: StreamEventData<'error'>;
  /** Where a producer's failure is reported (a bug: producers handle their own endings). */
  readonly logFailure: (error: unknown) => void;
}

/**
 * The lifecycle of a streaming route's body after its status is decided: an SSE stream with its
 * heartbeat (and padding, when configured) starts, `produce` writes the events, and whatever
 * happens the body ends — after one `error` event if `produce` threw before a final event. The
 * status is 200 and frozen from here (HOUSE_STYLE "Errors"); the body itself never rejects. The
 * invocation lasts until the body closes, so everything `produce` must finish (a budget
 * settlement) it awaits before it returns. Every stream answers this way: `POST /api/chat`
 * (`chat/chat-route.ts`) and the one-call streams (`model-call/model-stream-response.ts`). `E` is
 * the stream's own event union (`contract/chat-events.ts`): another stream's event does not
 * typecheck.
 *
 * @example
 * return sseResponse(
 *   { heartbeatMs, padding, failureEvent: { code: 'internal', message, retryable: true }, logFailure },
 *   (sse) => streamChat(begun, (event) => sse.send(event), dependencies),
 * );
 */
export function sseResponse<E extends StreamEvent>(
  options: SseResponseOptions,
  produce: (sse: SseStream<E>) => Promise<void>,
): SseResponse {
  const { failureEvent, logFailure, ...streamOptions } = options;
  const sse = createSseStream(streamOptions);
  let ended = false;
  const send = (event: StreamEvent) => {
    if (event.event === 'result' || event.event === 'error') ended = true;
    return sse.send(event);
  };
  const writer: SseStream<E> = {
    stream: sse.stream,
    send,
    comment: (text) => sse.comment(text),
    close: () => sse.close(),
    get closed() {
      return sse.closed;
    },
    get heartbeatsSent() {
      return sse.heartbeatsSent;
    },
    get paddingBytes() {
      return sse.paddingBytes;
    },
  };
  void (async () => {
    try {
      await produce(writer);
    } catch (error) {
      logFailure(error);
      if (!ended) send({ event: 'error', data: failureEvent });
    } finally {
      sse.close();
    }
  })();
  return { statusCode: 200, headers: { ...SSE_RESPONSE_HEADERS }, body: sse.stream };
}
