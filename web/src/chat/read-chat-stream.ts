import { createParser } from 'eventsource-parser';
import {
  type ChatEvent,
  chatEventSchemas,
  type EventOf,
  type EventSchemas,
} from '../../../functions/contract/chat-events.js';
import { ApiError } from '../api/api-error.js';
import { type InvalidChatEvent, parseStreamEvent } from './parse-chat-event.js';

export type { InvalidChatEvent } from './parse-chat-event.js';

/** Options of {@link readEventStream}: `S` is the stream's event schemas. */
export interface ReadEventStreamOptions<S extends EventSchemas> {
  /** The stream's events (`chatEventSchemas`, `knowledgeDraftEventSchemas`, …); others are ignored. */
  events: S;
  /** The chat endpoint, e.g. '/api/chat'. */
  url: string | URL;
  /** The request body; sent as JSON. */
  body: unknown;
  /** Extra request headers (the auth header). */
  headers?: Record<string, string>;
  /** Aborts the request and the reading; `readChatStream` then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** Each valid event of the stream, in stream order. */
  onEvent(event: EventOf<S>): void;
  /** An event with a known name whose data is invalid; it is skipped. */
  onInvalidEvent?(invalid: InvalidChatEvent): void;
}

/**
 * POSTs a chat request and reads the SSE response, calling `onEvent` for every valid event.
 * Resolves when the server ends the stream; whether the answer completed is told by the events
 * (`result` or `error`). Rejects with {@link ApiError} when the server refused the request,
 * with the abort reason when `signal` aborts, or with a network error.
 *
 * @example
 * await readChatStream({ url: '/api/chat', body: { message }, signal, onEvent: (e) => dispatch(e) });
 */
export async function readEventStream<S extends EventSchemas>(
  options: ReadEventStreamOptions<S>,
): Promise<void> {
  const { signal } = options;
  const fetchImplementation = options.fetch ?? globalThis.fetch;
  const response = await fetchImplementation(options.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      ...options.headers,
    },
    body: JSON.stringify(options.body),
    signal,
  });
  if (!response.ok) throw await ApiError.fromResponse(response);
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.startsWith('text/event-stream') || response.body === null) {
    await response.body?.cancel();
    const message = `Expected an event stream, got '${contentType}'`;
    throw new ApiError(response.status, 'not_event_stream', message);
  }

  const reader = response.body.getReader();
  // ignoreBOM: keep a BOM in the text so that the SSE parser strips exactly one, as the spec says.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  // eventsource-parser follows WHATWG HTML "Interpreting an event stream" (line ends split across
  // chunks, one BOM, comments); an event still open when the stream ends is never dispatched.
  const parser = createParser({
    onEvent(message) {
      const parsed = parseStreamEvent(message, options.events);
      if (parsed.kind === 'event') options.onEvent(parsed.event);
      else if (parsed.kind === 'invalid') options.onInvalidEvent?.(parsed.invalid);
    },
  });
  // A fetch polyfill or test double may not tie the body to the signal: cancel it ourselves.
  const cancel = () => void reader.cancel(signal?.reason).catch(() => {});
  signal?.addEventListener('abort', cancel, { once: true });
  let finished = false;
  try {
    signal?.throwIfAborted();
    for (;;) {
      const { done, value } = await reader.read();
      signal?.throwIfAborted();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
    }
    parser.feed(decoder.decode());
    finished = true;
  } finally {
    signal?.removeEventListener('abort', cancel);
    if (!finished) cancel();
  }
}

/** Options of {@link readChatStream}: the chat stream's events. */
export type ReadChatStreamOptions = Omit<ReadEventStreamOptions<typeof chatEventSchemas>, 'events'>;

/** {@link readEventStream} of `POST /api/chat`: its events are the chat's ({@link ChatEvent}). */
export function readChatStream(options: ReadChatStreamOptions): Promise<void> {
  return readEventStream({ ...options, events: chatEventSchemas });
}

/**
 * {@link readEventStream} for the streaming routes besides the chat (knowledge draft, mail-draft
 * refine, hand-off summary), whose callers handle one error type: any failure but the abort —
 * a refusal, or a network error before or during the stream — is an {@link ApiError} (a network
 * failure as status 0, `network`); an abort rejects with the signal's reason.
 */
export async function readApiEventStream<S extends EventSchemas>(
  options: ReadEventStreamOptions<S> & { readonly signal: AbortSignal },
): Promise<void> {
  try {
    await readEventStream(options);
  } catch (error) {
    if (options.signal.aborted || error instanceof ApiError) throw error;
    throw new ApiError(0, 'network', String(error), { cause: error });
  }
}
