import type { EventSourceMessage } from 'eventsource-parser';
import {
  type ChatEvent,
  chatEventSchemas,
  isChatEventName,
} from '../../../functions/contract/chat-events.js';

/** A chat event whose data was not JSON or did not match its schema. */
export interface InvalidChatEvent {
  event: string;
  data: string;
  reason: string;
}

/** Outcome of {@link parseChatEvent}: a valid event, an invalid one, or `ignored` (unknown name). */
export type ParsedChatEvent =
  | { kind: 'event'; event: ChatEvent }
  | { kind: 'invalid'; invalid: InvalidChatEvent }
  | { kind: 'ignored' };

/**
 * Turns one SSE message into a typed chat event, validated by the shared `chatEventSchemas`.
 * Unknown event names are ignored, so a newer server can add events without breaking older pages.
 */
export function parseChatEvent(
  message: Pick<EventSourceMessage, 'event' | 'data'>,
): ParsedChatEvent {
  // No `event:` field means the spec's default type, `message`: never a chat event.
  const name = message.event ?? 'message';
  if (!isChatEventName(name)) return { kind: 'ignored' };
  let json: unknown;
  try {
    json = JSON.parse(message.data);
  } catch {
    return {
      kind: 'invalid',
      invalid: { event: name, data: message.data, reason: 'data is not JSON' },
    };
  }
  const outcome = chatEventSchemas[name].safeParse(json);
  if (!outcome.success) {
    const reason = outcome.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    return { kind: 'invalid', invalid: { event: name, data: message.data, reason } };
  }
  return { kind: 'event', event: { event: name, data: outcome.data } as ChatEvent };
}
