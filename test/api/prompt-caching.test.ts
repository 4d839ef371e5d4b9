import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ConverseWireRequest } from '../../local/bedrock/recorded-requests.js';
import { eventsNamed, fetchConversation, postChat } from '../support/chat-client.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { scriptedAnswer } from '../support/scripted-answer.js';

// Prompt caching through the API in process (ADR 0009): the function's cache checkpoints reach the
// local Bedrock endpoint through the real SDK, the endpoint accounts reads and writes as Bedrock documents
// them, and the counts come back in the usage event, the stored turn, the chat log line and the
// EMF metrics. With PROMPT_CACHING=off nothing of it is sent.

let cached: InProcessApi;
let uncached: InProcessApi;
beforeAll(async () => {
  const functionEnvironment = { LOG_LEVEL: 'INFO', METRICS: 'true' };
  [cached, uncached] = await Promise.all([
    startInProcessApi({ functionEnvironment }),
    startInProcessApi({
      functionEnvironment: { ...functionEnvironment, PROMPT_CACHING: 'off' },
    }),
  ]);
});
afterAll(async () => {
  await Promise.all([cached?.stop(), uncached?.stop()]);
});

/** A first message long enough (a pasted error log) for the history to reach 1,024 tokens. */
const FIRST_MESSAGE = `VPNに接続できません。ログ:\n${'接続がタイムアウトしました(code 809)。'.repeat(20)}`;
const clarify = (question: string) =>
  scriptedAnswer({
    response_type: 'clarification',
    general_advice: '確認させてください。',
    question,
    options: ['社内から', '社外から'],
  });

interface StoredTurn {
  readonly role: string;
  readonly usage?: Record<string, number>;
}

/** Three turns of one inquiry (two clarifications, then results), with stdout captured. */
async function runInquiry(api: InProcessApi, user: string) {
  api.bedrock.enqueueScript(clarify('社内と社外のどちらからですか'));
  api.bedrock.enqueueScript(clarify('どの端末ですか'));
  api.bedrock.enqueueScript(
    scriptedAnswer({ response_type: 'results', general_advice: '再接続してください。' }),
  );
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: unknown) => {
    written.push(String(chunk));
    return true;
  });
  let turns: StoredTurn[];
  try {
    const first = await postChat(api.api, { message: FIRST_MESSAGE }, { user });
    const conversationId = eventsNamed(first, 'meta')[0]?.conversationId as string;
    for (const message of ['社外から', 'ノートPC']) {
      const next = await postChat(api.api, { conversationId, message }, { user });
      expect(eventsNamed(next, 'result')).toHaveLength(1);
    }
    // The chat line and metrics of the last answer are written before its stream ends; wait for
    // them by name rather than for a fixed time, so a slow machine cannot cut them off.
    await vi.waitFor(() => {
      expect(linesOf(written).filter((line) => line.message === 'chat finished')).toHaveLength(3);
    });
    turns = (await fetchConversation(api.api, conversationId, user)).turns as StoredTurn[];
  } finally {
    spy.mockRestore();
  }
  const lines = linesOf(written);
  return {
    usages: turns.filter((turn) => turn.role === 'assistant').map((turn) => turn.usage),
    requests: api.bedrock.converseRequests.slice(-3).map((request) => request.body),
    chatLines: lines.filter((line) => line.message === 'chat finished'),
    metrics: lines.filter((line) => line._aws !== undefined),
  };
}

/** The JSON lines in what was written to stdout. */
const linesOf = (written: string[]) =>
  written
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const cachePointsOf = (body: ConverseWireRequest | undefined) => ({
  tools: body?.toolConfig?.tools?.filter((tool) => tool.cachePoint).length,
  system: body?.system?.filter((block) => block.cachePoint).length,
  messages: body?.messages?.map(
    (message) => message.content?.filter((block) => block.cachePoint).length,
  ),
});

describe('prompt caching through the API', () => {
  it('writes the history on the second turn and reads it on the third; stores, logs and publishes the counts', async () => {
    const { usages, requests, chatLines, metrics } = await runInquiry(cached, 'cached');
    const [first, second, third] = usages;

    // Turn 1: tool definitions + system prompt are under the model's 1,024 tokens and there is
    // no history yet: no checkpoint, no cache counts.
    expect(cachePointsOf(requests[0])).toEqual({ tools: 0, system: 0, messages: [0] });
    expect(first).not.toHaveProperty('cacheReadInputTokens');
    expect(first).not.toHaveProperty('cacheWriteInputTokens');

    // Turn 2: a checkpoint after the clarification (the last history message), not after the
    // new user message; the prefix is new, so it is written.
    expect(cachePointsOf(requests[1])).toEqual({ tools: 0, system: 0, messages: [0, 1, 0] });
    expect(second?.cacheReadInputTokens).toBe(0);
    expect(second?.cacheWriteInputTokens).toBeGreaterThan(1024);

    // Turn 3: what turn 2 wrote is read; the newer history is written.
    expect(cachePointsOf(requests[2])).toEqual({
      tools: 0,
      system: 0,
      messages: [0, 0, 0, 1, 0],
    });
    expect(third?.cacheReadInputTokens).toBe(second?.cacheWriteInputTokens);
    expect(third?.cacheWriteInputTokens).toBeGreaterThan(0);
    expect(third?.inputTokens).toBeGreaterThan(0);
    expect(third).toMatchObject({
      timeToFirstTokenMs: expect.any(Number),
      modelMs: expect.any(Number),
    });

    expect(chatLines.at(-1)).toMatchObject({
      cache_read_input_tokens: third?.cacheReadInputTokens,
      cache_write_input_tokens: third?.cacheWriteInputTokens,
      estimated_cost_usd: 0,
    });
    const lastMetrics = metrics.at(-1) as Record<string, unknown> & {
      _aws: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] };
    };
    expect(lastMetrics._aws.CloudWatchMetrics[0]?.Metrics.map((metric) => metric.Name)).toEqual(
      expect.arrayContaining(['CacheReadInputTokens', 'CacheWriteInputTokens']),
    );
    expect(lastMetrics.CacheReadInputTokens).toBe(third?.cacheReadInputTokens);
  });

  it('sends no cache point and stores no cache counts with PROMPT_CACHING=off; total input is the same', async () => {
    const on = (await runInquiry(cached, 'compare-on')).usages;
    const { usages, requests, metrics } = await runInquiry(uncached, 'compare-off');
    for (const body of requests) expect(JSON.stringify(body)).not.toContain('cachePoint');
    for (const usage of usages) {
      expect(usage).not.toHaveProperty('cacheReadInputTokens');
      expect(usage).not.toHaveProperty('cacheWriteInputTokens');
    }
    expect(JSON.stringify(metrics)).not.toContain('CacheReadInputTokens');
    // The same prompt, accounted differently: uncached + read + write with caching equals the
    // input without it.
    const total = (usage: Record<string, number> | undefined) =>
      (usage?.inputTokens ?? 0) +
      (usage?.cacheReadInputTokens ?? 0) +
      (usage?.cacheWriteInputTokens ?? 0);
    expect(on.map(total)).toEqual(usages.map(total));
  });
});
