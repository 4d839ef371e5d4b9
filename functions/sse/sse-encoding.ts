import { type StreamEvent, streamEventSchemas } from '../contract/chat-events.js';

/**
 * Event names this server may write: a letter, then letters, digits, `_`, `-` or `.`. The SSE
 * spec would accept more, but CR, LF or a colon in a name would break the framing, and a
 * conservative pattern keeps names greppable.
 */
export const SSE_EVENT_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]*$/;

/** Splits on the three SSE line terminators: CRLF, LF and a lone CR. */
const LINE_BREAK = /\r\n|\r|\n/;

/**
 * Frames one SSE event (WHATWG HTML §9.2): an `event:` line, one `data:` line per line of
 * `data`, and a blank line. The reader joins the `data:` lines back with `\n`, so any text
 * (newlines included) survives; CR and CRLF inside `data` come back as `\n`.
 *
 * @throws TypeError when `name` does not match {@link SSE_EVENT_NAME_PATTERN} (a programming error).
 * @example
 * encodeSseEvent('token', '{"content":"Hi"}'); // 'event: token\ndata: {"content":"Hi"}\n\n'
 */
export function encodeSseEvent(name: string, data: string): string {
  if (!SSE_EVENT_NAME_PATTERN.test(name)) {
    throw new TypeError(`Invalid SSE event name: ${JSON.stringify(name)}`);
  }
  let frame = `event: ${name}\n`;
  for (const line of data.split(LINE_BREAK)) frame += `data: ${line}\n`;
  return `${frame}\n`;
}

/**
 * Frames an SSE comment, which readers ignore: the heartbeat that keeps CloudFront's origin read
 * timeout and idle proxies from closing a quiet stream. Ends with a blank line so that no
 * proxy waits for more before forwarding it.
 *
 * @example
 * encodeComment('ping'); // ': ping\n\n'
 */
export function encodeComment(text = ''): string {
  let frame = '';
  for (const line of text.split(LINE_BREAK)) frame += line === '' ? ':\n' : `: ${line}\n`;
  return `${frame}\n`;
}

/** The chat event does not match its schema in `streamEventSchemas`: a bug in the sender. */
export class ChatEventValidationError extends Error {
  override readonly name = 'ChatEventValidationError';
}

/** Options of {@link encodeChatEvent}. */
export interface EncodeChatEventOptions {
  /**
   * Check `data` against the event's zod schema before framing it.
   * @default true unless NODE_ENV is 'production' (the check is for development and tests)
   */
  readonly validate?: boolean;
}

// Typed as possibly absent, not through Node's types: the web app's tests import this encoder.
const validateByDefault =
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
    ?.NODE_ENV !== 'production';

/**
 * Frames a chat event as SSE text: `event: <name>` and its data as JSON.
 *
 * @throws ChatEventValidationError when validation is on and the data does not match its schema.
 * @example
 * encodeChatEvent({ event: 'token', data: { content: 'Hi' } });
 * // 'event: token\ndata: {"content":"Hi"}\n\n'
 */
export function encodeChatEvent(event: StreamEvent, options: EncodeChatEventOptions = {}): string {
  if (options.validate ?? validateByDefault) {
    const schema = streamEventSchemas[event.event];
    const outcome = schema?.safeParse(event.data);
    if (outcome === undefined || !outcome.success) {
      const detail = outcome?.error.issues.map((issue) => issue.message).join('; ') ?? 'unknown';
      throw new ChatEventValidationError(`Invalid '${event.event}' event: ${detail}`);
    }
  }
  return encodeSseEvent(event.event, JSON.stringify(event.data));
}
