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

const begun = {
  owner: { tenantId: 't', userId: 'u' },
  conversation: { conversationId: 'C' },
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

function run(options: { stopRequested: boolean; remainingMs: number }) {
  const store = {
    isStopRequested: async () => options.stopRequested,
  } as unknown as ConversationStore;
  return generateWithStop(
    begun,
    {
      store,
      model: slowModel,
      config: {
        ...defaultChatConfig,
        modelId: 'test-model',
        stopPollMs: 5,
        remainingTimeReserveMs: 1000,
      },
      remainingTimeMs: () => options.remainingMs,
    },
    request,
    new Set(),
    () => undefined,
  );
}

describe('generateWithStop', () => {
  it('keeps what streamed as stopped when staff press stop', async () => {
    const outcome = await run({ stopRequested: true, remainingMs: 60_000 });
    expect(outcome).toMatchObject({ status: 'stopped', answer: { general_advice: 'partial' } });
  });

  it('turns running out of time into a retryable failure, not a stop', async () => {
    const outcome = await run({ stopRequested: false, remainingMs: 500 });
    expect(outcome).toMatchObject({
      status: 'failed',
      answer: { general_advice: 'partial' },
      failure: { code: 'timeout', retryable: true },
    });
  });
});
