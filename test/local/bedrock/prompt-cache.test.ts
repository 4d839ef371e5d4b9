import { describe, expect, it } from 'vitest';
import { createLocalPromptCache, withoutCachePoints } from '../../../local/bedrock/prompt-cache.js';
import type { ConverseWireRequest } from '../../../local/bedrock/recorded-requests.js';

// The local endpoint's model of Bedrock's prompt-cache accounting (ADR 0009).

const MODEL = 'global.anthropic.claude-sonnet-4-5-20250929-v1:0';
const cachePoint = { cachePoint: { type: 'default' } };
const longText = (seed: string) => `${seed} `.repeat(1500); // ≈ 1,000+ tokens at 4 chars each
const tool = { toolSpec: { name: 'submit_response', inputSchema: { json: {} } } };

/** tools, a long system prompt with a checkpoint, and `turns` alternating messages. */
function requestWith(
  turns: readonly string[],
  options: { historyCheckpoint?: boolean } = {},
): ConverseWireRequest {
  const messages = turns.map((text, index) => ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [
      { text },
      ...(options.historyCheckpoint && index === turns.length - 2 ? [cachePoint] : []),
    ],
  }));
  return {
    toolConfig: { tools: [tool] },
    system: [{ text: longText('system') }, cachePoint],
    messages,
  };
}

function clock(start = 0) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('createLocalPromptCache', () => {
  it('writes a new prefix, reads it on the next request, and counts the rest as input', () => {
    const time = clock();
    const cache = createLocalPromptCache({ now: time.now });
    const first = cache.account(MODEL, requestWith(['Q1']), 5000, 4);
    expect(first?.cacheReadInputTokens).toBe(0);
    expect(first?.cacheWriteInputTokens).toBeGreaterThan(1024);
    expect(first?.inputTokens).toBe(5000 - (first?.cacheWriteInputTokens ?? 0));
    time.advance(60_000);
    const second = cache.account(MODEL, requestWith(['Q2']), 5000, 4);
    expect(second).toEqual({
      inputTokens: 5000 - (first?.cacheWriteInputTokens ?? 0),
      cacheReadInputTokens: first?.cacheWriteInputTokens,
      cacheWriteInputTokens: 0,
    });
  });

  it('forgets a prefix 5 minutes after its last use, and a read refreshes it', () => {
    const time = clock();
    const cache = createLocalPromptCache({ now: time.now });
    cache.account(MODEL, requestWith(['Q1']), 5000, 4);
    time.advance(4 * 60_000);
    expect(
      cache.account(MODEL, requestWith(['Q2']), 5000, 4)?.cacheReadInputTokens,
    ).toBeGreaterThan(0);
    time.advance(4 * 60_000); // 8 minutes after the write, 4 after the read
    expect(
      cache.account(MODEL, requestWith(['Q3']), 5000, 4)?.cacheReadInputTokens,
    ).toBeGreaterThan(0);
    time.advance(5 * 60_000 + 1);
    const expired = cache.account(MODEL, requestWith(['Q4']), 5000, 4);
    expect(expired?.cacheReadInputTokens).toBe(0);
    expect(expired?.cacheWriteInputTokens).toBeGreaterThan(0);
  });

  it('reads the history the previous turn wrote, through the lookback before a later checkpoint', () => {
    const cache = createLocalPromptCache({ now: () => 0 });
    const turn1 = ['Q', longText('answer'), 'option 1'];
    const first = cache.account(MODEL, requestWith(turn1, { historyCheckpoint: true }), 9000, 4);
    const turn2 = [...turn1, longText('second answer'), 'option 2'];
    const second = cache.account(MODEL, requestWith(turn2, { historyCheckpoint: true }), 12000, 4);
    // Everything up to the first history checkpoint is read; the new history is written.
    expect(second?.cacheReadInputTokens).toBe(first?.cacheWriteInputTokens);
    expect(second?.cacheWriteInputTokens).toBeGreaterThan(1024);
  });

  it('caches nothing at a checkpoint under the model minimum, or for a model that does not cache', () => {
    const cache = createLocalPromptCache({ now: () => 0 });
    const short: ConverseWireRequest = {
      system: [{ text: 'short system prompt' }, cachePoint],
      messages: [{ role: 'user', content: [{ text: 'Q' }] }],
    };
    expect(cache.account(MODEL, short, 100, 4)).toEqual({
      inputTokens: 100,
      cacheReadInputTokens: 0,
      cacheWriteInputTokens: 0,
    });
    expect(cache.account(MODEL, short, 100, 4)?.cacheReadInputTokens).toBe(0);
    expect(cache.account('meta.llama3-70b-instruct-v1:0', requestWith(['Q']), 5000, 4)).toBe(
      undefined,
    );
    // No cache point: no cache accounting (usage without cache counts).
    expect(cache.account(MODEL, withoutCachePoints(requestWith(['Q'])), 5000, 4)).toBeUndefined();
  });

  it('keeps prefixes of different models apart', () => {
    const cache = createLocalPromptCache({ now: () => 0 });
    cache.account(MODEL, requestWith(['Q']), 5000, 4);
    const other = cache.account(
      'anthropic.claude-sonnet-4-20250514-v1:0',
      requestWith(['Q']),
      5000,
      4,
    );
    expect(other?.cacheReadInputTokens).toBe(0);
  });
});

describe('withoutCachePoints', () => {
  it('removes cache points from tools, system and messages and nothing else', () => {
    const stripped = withoutCachePoints(requestWith(['Q', 'A', 'Q2'], { historyCheckpoint: true }));
    expect(JSON.stringify(stripped)).not.toContain('cachePoint');
    expect(stripped.messages?.map((message) => message.content?.length)).toEqual([1, 1, 1]);
    expect(stripped.toolConfig?.tools).toEqual([tool]);
  });
});
