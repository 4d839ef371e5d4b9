/** One dispatched SSE event, as the WHATWG spec defines it. */
export interface SseMessage {
  /** The `event:` field, or 'message' when there was none. */
  event: string;
  /** The `data:` lines joined with `\n`. */
  data: string;
  /** The last event ID seen on the stream ('' when none). */
  id: string;
}

/** Callbacks of {@link createSseParser}. */
export interface SseParserCallbacks {
  onEvent(message: SseMessage): void;
  /** A comment line (heartbeat), without the colon and one leading space. */
  onComment?(text: string): void;
  /** A valid `retry:` field, in milliseconds. */
  onRetry?(milliseconds: number): void;
}

/** An incremental SSE parser; feed it decoded text in chunks of any size. */
export interface SseParser {
  feed(text: string): void;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Parses an event stream per WHATWG HTML §9.2.6 ("Interpreting an event stream"): LF, CRLF or
 * CR line ends (a CRLF split between two chunks counts once), one leading BOM skipped, comments,
 * multi-line data joined with `\n`. An event still open when the stream ends is never
 * dispatched, as the spec requires. Decode bytes with a streaming `TextDecoder` first.
 *
 * @example
 * const parser = createSseParser({ onEvent: ({ event, data }) => console.log(event, data) });
 * parser.feed('event: token\ndata: {"content":"Hi"}\n\n');
 */
export function createSseParser(callbacks: SseParserCallbacks): SseParser {
  let started = false;
  let partialLine = '';
  let skipLineFeed = false;
  let eventType = '';
  let data = '';
  let lastEventId = '';

  function dispatch(): void {
    if (data === '') {
      eventType = '';
      return;
    }
    const message = { event: eventType || 'message', data: data.slice(0, -1), id: lastEventId };
    eventType = '';
    data = '';
    callbacks.onEvent(message);
  }

  function processLine(line: string): void {
    if (line === '') {
      dispatch();
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) {
      callbacks.onComment?.(line.startsWith(': ') ? line.slice(2) : line.slice(1));
      return;
    }
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data += `${value}\n`;
    else if (field === 'event') eventType = value;
    else if (field === 'id') {
      if (!value.includes('\0')) lastEventId = value;
    } else if (field === 'retry' && /^[0-9]+$/.test(value)) callbacks.onRetry?.(Number(value));
  }

  function feed(chunk: string): void {
    let text = chunk;
    if (text === '') return;
    if (!started) {
      started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let start = 0;
    if (skipLineFeed && text.charCodeAt(0) === LF) start = 1;
    skipLineFeed = false;
    for (let index = start; index < text.length; index++) {
      const code = text.charCodeAt(index);
      if (code !== LF && code !== CR) continue;
      const line = partialLine + text.slice(start, index);
      partialLine = '';
      if (code === CR) {
        if (index + 1 === text.length) skipLineFeed = true;
        else if (text.charCodeAt(index + 1) === LF) index++;
      }
      start = index + 1;
      processLine(line);
    }
    partialLine += text.slice(start);
  }

  return { feed };
}
