import { MARKER_PATTERN } from './marked-answer.js';
import { wallClockNow } from './wall-clock.js';

export interface TimedChat {
  readonly status: number;
  readonly startedAt: number;
  /**
   * First arrival of each event, {@link wallClockNow} of the chunk that completed its `data:`
   * line; progress events are keyed `progress:<step>` (e.g. `progress:generating`).
   */
  readonly eventsAt: ReadonlyMap<string, number>;
  /** Marker → arrival ({@link wallClockNow}) of the `token` event that carried it. */
  readonly markers: ReadonlyMap<string, number>;
  /** The stream ended with a `result` event (not `error`). */
  readonly completed: boolean;
}

/** One complete event header and its (single, JSON) `data:` line. */
const EVENT_LINE = /event: ([\w.-]+)\ndata: ([^\n]*)\n/g;
const PROGRESS_STEP = /^\{"step":"(\w+)"/;

/**
 * `POST /api/chat`, read chunk by chunk and timestamped on arrival with {@link wallClockNow}
 * (comparable with the send times recorded in the local Bedrock endpoint's process).
 * Minimal SSE reading is enough here: the function writes each event as `event:` + one `data:`
 * line (JSON never contains a raw newline), so the numbers are not blurred by a parser's cost.
 */
export async function postChatTimed(
  baseUrl: string,
  message: string,
  user: string,
): Promise<TimedChat> {
  const startedAt = wallClockNow();
  const response = await fetch(new URL('/api/chat', baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-dev-user': user },
    body: JSON.stringify({ message }),
  });
  const eventsAt = new Map<string, number>();
  const markers = new Map<string, number>();
  const decoder = new TextDecoder();
  let pending = '';
  for await (const chunk of (response.body ?? []) as unknown as AsyncIterable<Uint8Array>) {
    const at = wallClockNow();
    pending += decoder.decode(chunk, { stream: true });
    let consumed = 0;
    for (const match of pending.matchAll(EVENT_LINE)) {
      const [line, name = '', data = ''] = match;
      consumed = match.index + line.length;
      const step = name === 'progress' ? PROGRESS_STEP.exec(data)?.[1] : undefined;
      const label = step ? `progress:${step}` : name;
      if (!eventsAt.has(label)) eventsAt.set(label, at);
      if (name !== 'token') continue;
      for (const [marker] of data.matchAll(MARKER_PATTERN))
        if (!markers.has(marker)) markers.set(marker, at);
    }
    pending = pending.slice(consumed);
  }
  return {
    status: response.status,
    startedAt,
    eventsAt,
    markers,
    completed: eventsAt.has('result'),
  };
}
