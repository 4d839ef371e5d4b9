import { type ChatEvent, chatEventSchemas } from '../contract/chat-events.js';
import { encodeSseEvent } from './encode-sse-event.js';

/** The chat event does not match its schema in `chatEventSchemas`: a bug in the sender. */
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

const validateByDefault = globalThis.process?.env?.NODE_ENV !== 'production';

/**
 * Frames a chat event as SSE text: `event: <name>` and its data as JSON.
 *
 * @throws ChatEventValidationError when validation is on and the data does not match its schema.
 * @example
 * encodeChatEvent({ event: 'token', data: { content: 'Hi' } });
 * // 'event: token\ndata: {"content":"Hi"}\n\n'
 */
export function encodeChatEvent(event: ChatEvent, options: EncodeChatEventOptions = {}): string {
  if (options.validate ?? validateByDefault) {
    const schema = chatEventSchemas[event.event];
    const outcome = schema?.safeParse(event.data);
    if (outcome === undefined || !outcome.success) {
      const detail = outcome?.error.issues.map((issue) => issue.message).join('; ') ?? 'unknown';
      throw new ChatEventValidationError(`Invalid '${event.event}' event: ${detail}`);
    }
  }
  return encodeSseEvent(event.event, JSON.stringify(event.data));
}
