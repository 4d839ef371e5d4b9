import { describe, expect, it } from 'vitest';
import { generateWithStop } from '../../functions/chat/generate.js';
import { answerTool } from '../../functions/chat/model-request.js';
import {
  type ChatModel,
  type ChatModelRequest,
  type ConversationStore,
  defaultChatConfig,
} from '../../functions/chat/ports.js';
import type { BegunChat } from '../../functions/chat/run-chat.js';
import { silentLog } from '../support/silent-log.js';

const begun = {
  owner: { tenantId: 't', userId: 'u' },
  conversation: { conversationId: 'C' },
  turn: { seq: 3 },
  startedAt: new Date().toISOString(),
} as unknown as BegunChat;
const request = {
  system: 's',
  messages: [{ role: 'user' as const, text: 'q' }],
  tool: answerTool,
  maxTokens: 100,
};

/** Streams one fragment, then waits until aborted (a model that keeps thinking). */
const slowModel: ChatModel = {
  async *stream(modelRequest: ChatModelRequest) {
    yield { type: 'tool_input', fragment: '{"general_advice":"partial' };
    await new Promise((resolve) => modelRequest.signal?.addEventListener('abort', resolve));
  },
};

function run(options: { stoppedSeqs: readonly number[]; remainingMs: number | (() => number) }) {
  const store = {
    isStopRequested: async (_owner: unknown, _conversationId: string, userSeq: number) =>
      options.stoppedSeqs.includes(userSeq),
  } as unknown as ConversationStore;
  return generateWithStop(
    begun,
    {
      store,
      model: slowModel,
      log: silentLog,
      config: {
        ...defaultChatConfig,
        modelId: 'test-model',
        numberOfResults: 8,
        dailyTokenBudget: 0,
        queryExpansion: true,
        stopPollMs: 5,
        remainingTimeReserveMs: 1000,
      },
      remainingTimeMs:
        typeof options.remainingMs === 'number'
          ? () => options.remainingMs as number
          : options.remainingMs,
    },
    request,
    new Set(),
    () => undefined,
  );
}

describe('generateWithStop', () => {
  it('keeps what streamed as stopped when staff press stop', async () => {
    const outcome = await run({ stoppedSeqs: [3], remainingMs: 60_000 });
    expect(outcome).toMatchObject({ status: 'stopped', answer: { general_advice: 'partial' } });
  });

  it('is not stopped by a stop for another answer', async () => {
    // Another answer's stop never ends this one: the poller looks ten times, then time runs out.
    let ticks = 0;
    const outcome = await run({
      stoppedSeqs: [1, 5],
      remainingMs: () => (++ticks > 20 ? 500 : 60_000),
    });
    expect(outcome).toMatchObject({ status: 'failed', failure: { code: 'timeout' } });
  });

  it('turns running out of time into a retryable failure, not a stop', async () => {
    const outcome = await run({ stoppedSeqs: [], remainingMs: 500 });
    expect(outcome).toMatchObject({
      status: 'failed',
      answer: { general_advice: 'partial' },
      failure: { code: 'timeout', retryable: true },
    });
  });
});
