import { createParser, type EventSourceMessage } from 'eventsource-parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type StreamEvent, streamEventSchemas } from '../../functions/contract/chat-events.js';
import { encodeChatEvent, encodeComment } from '../../functions/sse/sse-encoding.js';
import { readEventStream } from '../../web/src/chat/read-chat-stream.js';
import { encodeUtf8, fakeFetch } from '../support/fake-fetch.js';
import { splitIntoFragments } from '../support/split-into-fragments.js';
import { chatEvent } from './support/chat-event-arbitraries.js';

/** What an independent, widely used SSE parser makes of the same text. */
function decodeWithEventsourceParser(text: string): StreamEvent[] {
  const messages: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => messages.push(message) });
  parser.feed(text);
  return messages.map((message) => ({
    event: message.event ?? 'message',
    data: JSON.parse(message.data),
  })) as StreamEvent[];
}

describe('SSE round trip', () => {
  it('decodes every event type the server encodes, at any byte boundary, like eventsource-parser', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(chatEvent, { minLength: 1, maxLength: 6 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        async (events, sizes, withHeartbeats) => {
          const text = events
            .map((event) => encodeChatEvent(event) + (withHeartbeats ? encodeComment('ping') : ''))
            .join('');
          const decoded: StreamEvent[] = [];
          const { fetch } = fakeFetch(splitIntoFragments(encodeUtf8(text), sizes));
          await readEventStream({
            events: streamEventSchemas,
            url: '/api/chat',
            body: {},
            fetch,
            onEvent: (event) => decoded.push(event),
            onInvalidEvent: (invalid) => {
              throw new Error(`invalid: ${invalid.reason}`);
            },
          });
          // Zod's output equals the input for valid events, so the originals are the reference.
          expect(decoded).toEqual(events);
          expect(decodeWithEventsourceParser(text)).toEqual(events);
        },
      ),
      { numRuns: 1500 },
    );
  });
});
