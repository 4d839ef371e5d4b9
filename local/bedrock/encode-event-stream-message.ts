import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/**
 * One `application/vnd.amazon.eventstream` message, as Bedrock sends it.
 *
 * - `event`: `:message-type: event`, `:event-type: <member>` (e.g. `contentBlockDelta`);
 * - `exception`: `:message-type: exception`, `:exception-type: <member>`
 *   (e.g. `modelStreamErrorException`), which the SDK throws during iteration.
 *
 * The payload is the member's JSON body.
 *
 * @example
 * response.write(encodeEventStreamMessage({ kind: 'event', type: 'messageStart', payload: { role: 'assistant' } }));
 */
export function encodeEventStreamMessage(message: {
  readonly kind: 'event' | 'exception';
  readonly type: string;
  readonly payload: unknown;
}): Uint8Array {
  const typeHeader = message.kind === 'event' ? ':event-type' : ':exception-type';
  return codec.encode({
    headers: {
      [typeHeader]: { type: 'string', value: message.type },
      ':message-type': { type: 'string', value: message.kind },
      ':content-type': { type: 'string', value: 'application/json' },
    },
    body: fromUtf8(JSON.stringify(message.payload)),
  });
}
