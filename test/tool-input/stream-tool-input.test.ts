import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  streamToolInput,
  type ToolCallStreamEvent,
} from '../../functions/tool-input/stream-tool-input.js';
import type { ToolInputEvent } from '../../functions/tool-input/tool-input-parser.js';

/** The model-to-parser loop that answers and knowledge drafts share. */

type Event =
  | { readonly type: 'tool_input'; readonly fragment: string }
  | { readonly type: 'stop'; readonly reason: 'tool_use' | 'max_tokens' }
  | { readonly type: 'usage'; readonly inputTokens: number; readonly outputTokens: number };

const fragment = (text: string): Event => ({ type: 'tool_input', fragment: text });

/** Yields `events`; records how many the consumer pulled, so a test sees where reading stopped. */
function scripted(events: readonly Event[], options: { throwAfter?: unknown } = {}) {
  const pulled = { count: 0 };
  async function* stream(): AsyncGenerator<Event> {
    for (const event of events) {
      pulled.count++;
      yield event;
    }
    if (options.throwAfter !== undefined) throw options.throwAfter;
  }
  return { events: stream(), pulled };
}

async function run(
  events: AsyncIterable<ToolCallStreamEvent & Event>,
  signal = new AbortController().signal,
) {
  const seen: ToolInputEvent[] = [];
  const outcome = await streamToolInput({
    events,
    parser: { textFields: ['advice'], arrayFields: { steps: z.string().min(1) } },
    signal,
    onEvent: (event) => seen.push(event),
  });
  return { outcome, seen };
}

describe('streamToolInput', () => {
  it('hands each parser event over as its fragment is read, and keeps stop and usage', async () => {
    const { events } = scripted([
      fragment('{"advice":"Re'),
      fragment('start","steps":["a",""'),
      fragment(',"b"]}'),
      { type: 'usage', inputTokens: 12, outputTokens: 7 },
      { type: 'stop', reason: 'tool_use' },
    ]);
    const { outcome, seen } = await run(events);
    expect(seen.map((event) => event.type)).toEqual([
      'text',
      'text',
      'element',
      'invalid_element',
      'element',
    ]);
    expect(outcome).toEqual({
      // Complete input: the value as JSON.parse gives it, the element that failed included.
      final: { value: { advice: 'Restart', steps: ['a', '', 'b'] }, truncated: false },
      fragments: 3,
      malformed: false,
      aborted: false,
      stopReason: 'tool_use',
      usage: { inputTokens: 12, outputTokens: 7 },
    });
  });

  it('stops reading at the first syntax error and says so', async () => {
    const { events, pulled } = scripted([
      fragment('{"advice":"ok"'),
      fragment(' oops'),
      fragment(',"advice":"never"}'),
      { type: 'stop', reason: 'tool_use' },
    ]);
    const { outcome, seen } = await run(events);
    expect(pulled.count).toBe(2);
    expect(seen.at(-1)?.type).toBe('error');
    expect(outcome.malformed).toBe(true);
    expect(outcome.final.error).toBeDefined();
    expect(outcome.final.value).toEqual({ advice: 'ok' });
    expect(outcome.stopReason).toBeUndefined();
  });

  it('returns a failing stream as streamError, keeping what was parsed before it', async () => {
    const failure = new Error('connection reset');
    const { events } = scripted([fragment('{"advice":"half')], { throwAfter: failure });
    const { outcome } = await run(events);
    expect(outcome.streamError).toEqual({ error: failure });
    expect(outcome.aborted).toBe(false);
    expect(outcome.final).toMatchObject({ value: { advice: 'half' }, truncated: true });
  });

  it('ends at an abort without reading on, and an error the abort caused is no streamError', async () => {
    const controller = new AbortController();
    let pulled = 0;
    async function* events(): AsyncGenerator<Event> {
      pulled++;
      yield fragment('{"advice":"first');
      controller.abort();
      pulled++;
      yield fragment(' second');
      pulled++;
      yield { type: 'stop', reason: 'tool_use' };
    }
    const { outcome, seen } = await run(events(), controller.signal);
    expect(pulled).toBe(2);
    expect(seen).toEqual([{ type: 'text', field: 'advice', delta: 'first' }]);
    expect(outcome).toMatchObject({ aborted: true, fragments: 1 });
    expect(outcome.streamError).toBeUndefined();

    const aborting = new AbortController();
    async function* throwsOnAbort(): AsyncGenerator<Event> {
      yield fragment('{"advice":"x');
      aborting.abort();
      throw new DOMException('This operation was aborted', 'AbortError');
    }
    const thrown = await run(throwsOnAbort(), aborting.signal);
    expect(thrown.outcome).toMatchObject({ aborted: true });
    expect(thrown.outcome.streamError).toBeUndefined();
  });

  it('counts no fragment when the model never calls the tool', async () => {
    const { events } = scripted([{ type: 'stop', reason: 'tool_use' }]);
    const { outcome, seen } = await run(events);
    expect(seen).toEqual([]);
    expect(outcome).toMatchObject({ fragments: 0, stopReason: 'tool_use', malformed: false });
  });
});
