import { encodeChatEvent } from '../../functions/sse/sse-encoding.js';
import { createToolInputParser } from '../../functions/tool-input/tool-input-parser.js';

const bytesOf = (text: string) => Buffer.byteLength(text, 'utf8');
const tokenBytes = (content: string) =>
  bytesOf(encodeChatEvent({ event: 'token', data: { content } }, { validate: false }));

/**
 * SSE bytes on the wire per byte of advice, for three ways of cutting the advice into events:
 * one per fragment, events of at least `batchChars` characters (what coalescing reaches when
 * fragments arrive together), one per character.
 */
export function measureSseOverhead(fragments: readonly string[], batchChars: number) {
  const parser = createToolInputParser({ textFields: ['general_advice'], arrayFields: {} });
  const deltas: string[] = [];
  for (const fragment of fragments) {
    for (const event of parser.write(fragment)) if (event.type === 'text') deltas.push(event.delta);
  }
  const advice = deltas.join('');
  const adviceBytes = bytesOf(advice);
  const perFragment = deltas.reduce((sum, delta) => sum + tokenBytes(delta), 0);
  let batched = 0;
  let batchedEvents = 0;
  let pending = '';
  const send = () => {
    batched += tokenBytes(pending);
    batchedEvents++;
    pending = '';
  };
  for (const delta of deltas) {
    pending += delta;
    if (pending.length >= batchChars) send();
  }
  if (pending !== '') send();
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
