import { createParser } from 'eventsource-parser';
import {
  type ConversationDetail,
  conversationDetailSchema,
} from '../../functions/contract/conversations.js';

export interface ReceivedEvent {
  readonly event: string;
  readonly data: Record<string, unknown>;
}

export interface ChatResponse {
  readonly status: number;
  readonly headers: Headers;
  /** Decoded SSE events (by the independent `eventsource-parser`), or empty for JSON responses. */
  readonly events: ReceivedEvent[];
  /** The raw body text (SSE including comments, or JSON). */
  readonly text: string;
  readonly json?: unknown;
  /** The raw body bytes (an attachment's). */
  readonly bytes: Uint8Array;
}

export interface ChatCallOptions {
  readonly user?: string;
  readonly headers?: Record<string, string>;
  /** Called for each event as it arrives (e.g. to press stop after the first token). */
  readonly onEvent?: (event: ReceivedEvent) => void | Promise<void>;
}

/**
 * Something that answers `/api` calls other than over HTTP: the in-process API
 * (`test/support/in-process-api.ts`).
 */
export interface ApiCaller {
  call(
    method: string,
    path: string,
    body?: unknown,
    options?: ChatCallOptions,
  ): Promise<ChatResponse>;
}

/**
 * Where the helpers below send their calls: a running stack's base URL, or an API called in
 * process. Tests of API rules pass the in-process API; the same helpers serve both.
 */
export type ApiTarget = string | ApiCaller;

/** Calls an `/api` route of a running stack (or the in-process API) the way the web app does. */
export async function callApi(
  baseUrl: ApiTarget,
  method: string,
  path: string,
  body?: unknown,
  options: ChatCallOptions = {},
): Promise<ChatResponse> {
  if (typeof baseUrl !== 'string') return baseUrl.call(method, path, body, options);
  const rawBody =
    body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const response = await fetch(new URL(path, baseUrl), {
    method,
    headers: {
      ...(rawBody === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.user ? { 'x-dev-user': options.user } : {}),
      ...options.headers,
    },
    body: rawBody,
  });
  return readApiResponse(response, options);
}

/** Reads a response of the API as the web app would: SSE events as they arrive, or JSON. */
export async function readApiResponse(
  response: Response,
  options: Pick<ChatCallOptions, 'onEvent'> = {},
): Promise<ChatResponse> {
  const events: ReceivedEvent[] = [];
  const pending: Promise<void>[] = [];
  const parser = createParser({
    onEvent(message) {
      const event = {
        event: message.event ?? 'message',
        data: JSON.parse(message.data) as Record<string, unknown>,
      };
      events.push(event);
      const handled = options.onEvent?.(event);
      if (handled) pending.push(handled);
    },
  });
  const decoder = new TextDecoder();
  let text = '';
  const chunks: Uint8Array[] = [];
  for await (const chunk of (response.body ?? []) as unknown as AsyncIterable<Uint8Array>) {
    chunks.push(chunk);
    const piece = decoder.decode(chunk, { stream: true });
    text += piece;
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) parser.feed(piece);
  }
  await Promise.all(pending);
  const isJson =
    response.headers.get('content-type')?.startsWith('application/json') && text !== '';
  return {
    status: response.status,
    headers: response.headers,
    bytes: Buffer.concat(chunks),
    events,
    text,
    json: isJson ? JSON.parse(text) : undefined,
  };
}

/**
 * `GET /api/conversations/{id}` as `user`, checked against the contract's schema: what a test
 * reads of a stored conversation is what the web app would get. Anything but 200 throws.
 */
export async function fetchConversation(
  baseUrl: ApiTarget,
  conversationId: string,
  user: string,
): Promise<ConversationDetail> {
  const response = await callApi(
    baseUrl,
    'GET',
    `/api/conversations/${conversationId}`,
    undefined,
    { user },
  );
  if (response.status !== 200) {
    throw new Error(
      `GET /api/conversations/${conversationId}: ${response.status} ${response.text}`,
    );
  }
  return conversationDetailSchema.parse(response.json);
}

export const postChat = (baseUrl: ApiTarget, body: unknown, options?: ChatCallOptions) =>
  callApi(baseUrl, 'POST', '/api/chat', body, options);

export const eventsNamed = (response: ChatResponse, name: string) =>
  response.events.filter((event) => event.event === name).map((event) => event.data);

/** The answer a stop names: its conversation and the seq of the user turn it answers. */
export interface StopTarget {
  readonly conversationId: string;
  readonly userSeq: number;
}

/**
 * Options for {@link postChat} that press stop once, on the first token, as the web app's stop
 * button would: for `target`, or else for the answer this stream's `meta` names. The chat call
 * waits for the stop, so `stopStatus()` is its HTTP status once the call returned.
 */
export function stopOnFirstToken(
  baseUrl: ApiTarget,
  user: string,
  target?: StopTarget,
): ChatCallOptions & { stopStatus(): number } {
  let stopStatus = 0;
  let pressed = false;
  let streamed: StopTarget | undefined;
  return {
    user,
    stopStatus: () => stopStatus,
    onEvent: async (event) => {
      if (event.event === 'meta') {
        const { conversationId, userSeq } = event.data as unknown as StopTarget;
        streamed = { conversationId, userSeq };
      }
      if (event.event !== 'token' || pressed) return;
      pressed = true;
      const stopped = target ?? streamed;
      if (!stopped) throw new Error('a token arrived before the meta event that names the answer');
      const stop = await callApi(
        baseUrl,
        'POST',
        `/api/conversations/${stopped.conversationId}/stop`,
        { userSeq: stopped.userSeq },
        { user },
      );
      stopStatus = stop.status;
    },
  };
}
