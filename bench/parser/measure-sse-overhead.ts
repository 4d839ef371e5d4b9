import { encodeChatEvent } from '../../functions/sse/sse-encoding.js';
import { createTokenBatcher } from '../../functions/sse/sse-stream.js';
import { createToolInputParser } from '../../functions/tool-input/tool-input-parser.js';

const bytesOf = (text: string) => Buffer.byteLength(text, 'utf8');
const tokenBytes = (content: string) =>
  bytesOf(encodeChatEvent({ event: 'token', data: { content } }, { validate: false }));

/** SSE bytes on the wire per byte of advice, for three ways of cutting the advice into events. */
export function measureSseOverhead(fragments: readonly string[], batchChars: number) {
  const parser = createToolInputParser({ textFields: ['general_advice'], arrayFields: {} });
  const deltas: string[] = [];
  for (const fragment of fragments) {
    for (const event of parser.write(fragment)) if (event.type === 'text') deltas.push(event.delta);
  }
  const advice = deltas.join('');
  const adviceBytes = bytesOf(advice);
  const perFragment = deltas.reduce((sum, delta) => sum + tokenBytes(delta), 0);
  // Fragments arrive back to back here, so only the size threshold of the batcher acts.
  let batched = 0;
  let batchedEvents = 0;
  const batcher = createTokenBatcher({
    minChars: batchChars,
    send: (content) => {
      batched += tokenBytes(content);
      batchedEvents++;
    },
  });
  for (const delta of deltas) batcher.add(delta);
  batcher.close();
  const perCharacter = [...advice].reduce((sum, character) => sum + tokenBytes(character), 0);
  return {
    adviceBytes,
    events: deltas.length,
    batchedEvents,
    perFragment: perFragment / adviceBytes,
    batched: batched / adviceBytes,
    perCharacter: perCharacter / adviceBytes,
  };
}
