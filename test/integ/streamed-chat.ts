import { createParser } from 'eventsource-parser';

/**
 * One chat as the acceptance suite sees it on the wire: every network read with its arrival time,
 * what it carried (event names, heartbeats, padding, advice characters), and the decoded events.
 * The reads are what "token arrival spread" counts: a front end that holds small writes back
 * delivers the advice in one read at the end, however the function wrote it.
 */

export interface ChatEventReceived {
  readonly event: string;
  readonly data: Record<string, unknown>;
  /** Milliseconds from sending the request to the read that completed this event. */
  readonly atMs: number;
}

export interface NetworkRead {
  readonly atMs: number;
  readonly bytes: number;
  readonly events: readonly string[];
  readonly heartbeats: number;
  readonly paddings: number;
  /** Advice characters (`token` content) this read completed. */
  readonly adviceChars: number;
}

export interface StreamedChat {
  readonly status: number;
  readonly contentType: string;
  /** The body of a non-SSE response (an error), else ''. */
  readonly errorBody: string;
  readonly events: readonly ChatEventReceived[];
  readonly reads: readonly NetworkRead[];
  /** Arrival of each `: ping` comment, ms from the request. */
  readonly heartbeatsAtMs: readonly number[];
  readonly firstTokenMs?: number;
  readonly firstTicketMs?: number;
  readonly totalMs: number;
  readonly bytes: number;
}

/** How the suite calls `/api/*` on a target: authenticated as its user, as the web app does. */
export type ApiCaller = (
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: string,
) => Promise<Response>;

/**
 * POSTs one chat (or another streamed route, such as a knowledge draft) and records its stream
 * read by read.
 */
export async function streamChat(
  call: ApiCaller,
  body: unknown,
  path = 'chat',
): Promise<StreamedChat> {
  const startedAt = performance.now();
  const since = () => Math.round(performance.now() - startedAt);
  const response = await call('POST', path, JSON.stringify(body));
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.startsWith('text/event-stream') || !response.body) {
    const text = await response.text();
    return {
      status: response.status,
      contentType,
      errorBody: text.slice(0, 500),
      events: [],
      reads: [],
      heartbeatsAtMs: [],
      totalMs: since(),
      bytes: Buffer.byteLength(text),
    };
  }

  const events: ChatEventReceived[] = [];
  const reads: NetworkRead[] = [];
  const heartbeatsAtMs: number[] = [];
  let current = { events: [] as string[], heartbeats: 0, paddings: 0, adviceChars: 0 };
  let readAt = 0;
  const parser = createParser({
    onEvent(message) {
      const event = message.event ?? 'message';
      const data = JSON.parse(message.data) as Record<string, unknown>;
      events.push({ event, data, atMs: readAt });
      current.events.push(event);
      if (event === 'token') current.adviceChars += String(data.content ?? '').length;
    },
    onComment(comment) {
      if (comment.trim() === 'ping') {
        current.heartbeats++;
        heartbeatsAtMs.push(readAt);
      } else if (comment.trim() === '') current.paddings++;
    },
  });
  const decoder = new TextDecoder();
  let bytes = 0;
  const reader = response.body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    readAt = since();
    bytes += read.value.byteLength;
    current = { events: [], heartbeats: 0, paddings: 0, adviceChars: 0 };
    parser.feed(decoder.decode(read.value, { stream: true }));
    reads.push({ atMs: readAt, bytes: read.value.byteLength, ...current });
  }
  parser.feed(decoder.decode());
  return {
    status: response.status,
    contentType,
    errorBody: '',
    events,
    reads,
    heartbeatsAtMs,
    firstTokenMs: events.find((event) => event.event === 'token')?.atMs,
    firstTicketMs: events.find((event) => event.event === 'ticket')?.atMs,
    totalMs: since(),
    bytes,
  };
}

/** The events of one name, decoded. */
export const eventsNamed = (chat: StreamedChat, name: string) =>
  chat.events.filter((event) => event.event === name).map((event) => event.data);

export interface ChatAnswer {
  readonly conversationId?: string;
  readonly inquiryId?: string;
  readonly modelId?: string;
  /** The `result` event's data, when the stream ended with one. */
  readonly result?: {
    readonly response_type?: string;
    readonly status?: string;
    readonly general_advice?: string;
    readonly mail_draft?: string;
    readonly todo_actions?: readonly string[];
    readonly options?: readonly string[];
    readonly results?: readonly { issue_id: string; subject: string }[];
  };
  readonly error?: { readonly code?: string; readonly message?: string };
  /** Issue ids of `kb_chunks`. */
  readonly retrievedIds: readonly string[];
  readonly retrievedSubjects: readonly string[];
  /** Issue ids of the `ticket` cards and of `result.results`. */
  readonly cardIds: readonly string[];
  readonly cardSubjects: readonly string[];
  readonly advice: string;
}

/** What the events of a chat say, in the shapes the checks compare. */
export function answerOf(chat: StreamedChat): ChatAnswer {
  const meta = eventsNamed(chat, 'meta')[0] as
    | { conversationId?: string; inquiryId?: string; modelId?: string }
    | undefined;
  const result = eventsNamed(chat, 'result').at(-1) as ChatAnswer['result'];
  const chunks = eventsNamed(chat, 'kb_chunks').flatMap(
    (data) => (data.chunks ?? []) as { issue_id: string; subject: string }[],
  );
  const cards = [
    ...(eventsNamed(chat, 'ticket') as { issue_id: string; subject: string }[]),
    ...(result?.results ?? []),
  ];
  return {
    conversationId: meta?.conversationId,
    inquiryId: meta?.inquiryId,
    modelId: meta?.modelId,
    result,
    error: eventsNamed(chat, 'error')[0] as ChatAnswer['error'],
    retrievedIds: chunks.map((chunk) => chunk.issue_id),
    retrievedSubjects: chunks.map((chunk) => chunk.subject),
    cardIds: [...new Set(cards.map((card) => card.issue_id))],
    cardSubjects: [...new Set(cards.map((card) => card.subject))],
    advice: eventsNamed(chat, 'token')
      .map((data) => String(data.content ?? ''))
      .join(''),
  };
}
