import type { EventSourceMessage } from 'eventsource-parser';
import type { EventOf, EventSchemas } from '../../../functions/contract/chat-events.js';

/** A stream event whose data was not JSON or did not match its schema. */
export interface InvalidChatEvent {
  event: string;
  data: string;
  reason: string;
}

/** Outcome of {@link parseStreamEvent}: a valid event, an invalid one, or `ignored`. */
export type ParsedStreamEvent<E> =
  | { kind: 'event'; event: E }
  | { kind: 'invalid'; invalid: InvalidChatEvent }
  | { kind: 'ignored' };

/**
 * Turns one SSE message into a typed event of the stream being read, validated by its schemas
 * (`contract/chat-events.ts`: `chatEventSchemas`, `knowledgeDraftEventSchemas`, …). A name the
 * stream does not have is ignored — another stream's event, or one a newer server added — so the
 * reader only ever sees its own union.
 */
export function parseStreamEvent<S extends EventSchemas>(
  message: Pick<EventSourceMessage, 'event' | 'data'>,
  schemas: S,
): ParsedStreamEvent<EventOf<S>> {
  // No `event:` field means the spec's default type, `message`: never a stream event.
  const name = message.event ?? 'message';
  const schema = Object.hasOwn(schemas, name) ? schemas[name] : undefined;
  if (schema === undefined) return { kind: 'ignored' };
  let json: unknown;
  try {
    json = JSON.parse(message.data);
  } catch {
    return {
      kind: 'invalid',
      invalid: { event: name, data: message.data, reason: 'data is not JSON' },
    };
  }
  const outcome = schema.safeParse(json);
  if (!outcome.success) {
    const reason = outcome.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    return { kind: 'invalid', invalid: { event: name, data: message.data, reason } };
  }
  return { kind: 'event', event: { event: name, data: outcome.data } as EventOf<S> };
}
