import type { ChatEvent, ChatEventData } from '../contract/chat-events.js';
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
  readonly failureEvent: ChatEventData<'error'>;
  /** Where a producer's failure is reported (a bug: producers handle their own endings). */
  readonly logFailure: (error: unknown) => void;
}

/**
 * The lifecycle of a streaming route's body after its status is decided: an SSE stream with its
 * heartbeat (and padding, when configured) starts, `produce` writes the events, and whatever
 * happens the body ends — after one `error` event if `produce` threw before a final event. The
 * status is 200 and frozen from here (HOUSE_STYLE "Errors"); the body itself never rejects. The
 * invocation lasts until the body closes, so everything `produce` must finish (a budget
 * settlement) it awaits before it returns. Both streaming routes (`POST /api/chat`, the
 * knowledge draft) answer this way.
 *
 * @example
 * return sseResponse(
 *   { heartbeatMs, padding, failureEvent: { code: 'internal', message, retryable: true }, logFailure },
 *   (sse) => streamChat(begun, (event) => sse.send(event), dependencies),
 * );
 */
export function sseResponse(
  options: SseResponseOptions,
  produce: (sse: SseStream) => Promise<void>,
): SseResponse {
  const { failureEvent, logFailure, ...streamOptions } = options;
  const sse = createSseStream(streamOptions);
  let ended = false;
  const send = (event: ChatEvent) => {
    if (event.event === 'result' || event.event === 'error') ended = true;
    return sse.send(event);
  };
  const writer: SseStream = {
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
