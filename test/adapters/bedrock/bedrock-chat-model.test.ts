import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBedrockChatModel } from '../../../functions/adapters/bedrock/bedrock-chat-model.js';
import { bedrockTransport } from '../../../functions/adapters/bedrock/bedrock-transport.js';
import { ChatModelError } from '../../../functions/chat/errors.js';
import { answerTool } from '../../../functions/chat/model-request.js';
import type { ChatModelEvent } from '../../../functions/chat/ports.js';
import {
  type LocalBedrockServer,
  startLocalBedrockServer,
} from '../../../local/bedrock/start-local-bedrock-server.js';

let bedrock: LocalBedrockServer;
let client: BedrockRuntimeClient;
beforeAll(async () => {
  bedrock = await startLocalBedrockServer({ pacing: { minMs: 0, maxMs: 0 } });
  client = new BedrockRuntimeClient({
    endpoint: bedrock.runtimeEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 2,
    requestHandler: bedrockTransport(),
  });
});
afterAll(async () => {
  client?.destroy();
  await bedrock?.close();
});

const request = {
  system: 'system prompt',
  messages: [{ role: 'user' as const, text: 'VPNにつながらない' }],
  tool: answerTool,
  maxTokens: 1000,
};

async function collect(events: AsyncIterable<ChatModelEvent>): Promise<ChatModelEvent[]> {
  const collected: ChatModelEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

describe('createBedrockChatModel (real SDK client, local ConverseStream endpoint)', () => {
  it('forces the tool, asks Anthropic models for fine-grained tool streaming and maps the stream', async () => {
    const modelId = 'global.anthropic.claude-sonnet-4-5-20250929-v1:0';
    bedrock.enqueueScript({
      kind: 'stream',
      fragments: ['{"response_type":', '"results"}'],
      delayMs: 0,
    });
    const events = await collect(createBedrockChatModel({ client, modelId }).stream(request));
    expect(events).toEqual([
      { type: 'tool_input', fragment: '{"response_type":' },
      { type: 'tool_input', fragment: '"results"}' },
      { type: 'stop', reason: 'tool_use' },
      { type: 'usage', inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
    ]);
    const sent = bedrock.converseRequests.at(-1);
    expect(sent?.modelId).toBe(modelId);
    expect(sent?.body).toMatchObject({
      system: [{ text: 'system prompt' }],
      messages: [{ role: 'user', content: [{ text: 'VPNにつながらない' }] }],
      toolConfig: {
        tools: [
          { toolSpec: { name: 'submit_response', inputSchema: { json: answerTool.inputSchema } } },
        ],
        toolChoice: { tool: { name: 'submit_response' } },
      },
      inferenceConfig: { maxTokens: 1000, temperature: 0 },
      additionalModelRequestFields: { anthropic_beta: ['fine-grained-tool-streaming-2025-05-14'] },
    });
  });

  it('does not ask other models for the Anthropic beta, and can be told not to', async () => {
    for (const [modelId, fineGrained] of [
      ['offline.service-desk-responder', undefined],
      ['us.anthropic.claude-haiku-4-5-20251001-v1:0', false],
    ] as const) {
      bedrock.enqueueScript({ kind: 'stream', fragments: ['{}'], delayMs: 0 });
      await collect(
        createBedrockChatModel({ client, modelId, fineGrainedToolStreaming: fineGrained }).stream(
          request,
        ),
      );
      expect(bedrock.converseRequests.at(-1)?.body).not.toHaveProperty(
        'additionalModelRequestFields',
      );
    }
  });

  it('sends cache points after the tool, the system prompt and the marked message, and nothing without checkpoints', async () => {
    const modelId = 'global.anthropic.claude-sonnet-4-5-20250929-v1:0';
    const history = {
      ...request,
      messages: [
        { role: 'user' as const, text: 'VPNにつながらない' },
        { role: 'assistant' as const, text: '{"response_type":"clarification"}' },
        { role: 'user' as const, text: '社外から' },
      ],
    };
    bedrock.enqueueScript({ kind: 'stream', fragments: ['{}'], delayMs: 0 });
    await collect(createBedrockChatModel({ client, modelId }).stream(history));
    const plain = bedrock.converseRequests.at(-1)?.body;

    bedrock.enqueueScript({ kind: 'stream', fragments: ['{}'], delayMs: 0 });
    await collect(
      createBedrockChatModel({ client, modelId }).stream({
        ...history,
        cacheCheckpoints: { afterTool: true, afterSystem: true, afterMessage: 1 },
      }),
    );
    const cached = bedrock.converseRequests.at(-1)?.body;
    const cachePoint = { cachePoint: { type: 'default' } };
    expect(cached?.system).toEqual([{ text: 'system prompt' }, cachePoint]);
    expect(cached?.toolConfig?.tools).toEqual([plain?.toolConfig?.tools?.[0], cachePoint]);
    expect(cached?.messages?.map((message) => message.content)).toEqual([
      [{ text: 'VPNにつながらない' }],
      [{ text: '{"response_type":"clarification"}' }, cachePoint],
      [{ text: '社外から' }],
    ]);

    // Without checkpoints the wire body is what it was before caching existed.
    expect(plain).toEqual({
      system: [{ text: 'system prompt' }],
      messages: history.messages.map((message) => ({
        role: message.role,
        content: [{ text: message.text }],
      })),
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: 'submit_response',
              description: answerTool.description,
              inputSchema: { json: answerTool.inputSchema },
            },
          },
        ],
        toolChoice: { tool: { name: 'submit_response' } },
      },
      inferenceConfig: { maxTokens: 1000, temperature: 0 },
      additionalModelRequestFields: { anthropic_beta: ['fine-grained-tool-streaming-2025-05-14'] },
    });
  });

  it('reports the cache reads and writes of the usage event', async () => {
    const model = createBedrockChatModel({ client, modelId: 'offline.service-desk-responder' });
    // A system prompt long enough for a checkpoint (the local endpoint models the minimum).
    const long = { ...request, system: 'Answer service-desk inquiries. '.repeat(200) };
    const cached = { ...long, cacheCheckpoints: { afterTool: false, afterSystem: true } };
    bedrock.enqueueScript({ kind: 'stream', fragments: ['{}'], delayMs: 0 });
    const first = (await collect(model.stream(cached))).find((event) => event.type === 'usage');
    bedrock.enqueueScript({ kind: 'stream', fragments: ['{}'], delayMs: 0 });
    const second = (await collect(model.stream(cached))).find((event) => event.type === 'usage');
    expect(first).toMatchObject({
      cacheReadInputTokens: 0,
      cacheWriteInputTokens: expect.any(Number),
    });
    expect(first?.type === 'usage' && first.cacheWriteInputTokens).toBeGreaterThan(1024);
    expect(second).toMatchObject({
      cacheReadInputTokens: first?.type === 'usage' ? first.cacheWriteInputTokens : -1,
      cacheWriteInputTokens: 0,
    });
    // Without checkpoints the usage carries no cache counts at all.
    bedrock.enqueueScript({ kind: 'stream', fragments: ['{}'], delayMs: 0 });
    const plain = (await collect(model.stream(long))).find((event) => event.type === 'usage');
    expect(plain).toEqual({
      type: 'usage',
      inputTokens: expect.any(Number),
      outputTokens: expect.any(Number),
    });
  });

  it('maps max_tokens', async () => {
    bedrock.enqueueScript({
      kind: 'stream',
      fragments: ['{"general_advice":"ab'],
      stopReason: 'max_tokens',
      delayMs: 0,
    });
    const events = await collect(
      createBedrockChatModel({ client, modelId: 'offline.x' }).stream(request),
    );
    expect(events).toContainEqual({ type: 'stop', reason: 'max_tokens' });
  });

  it('with a guardrail, sends its config in async stream mode and guards only the last user message', async () => {
    bedrock.enqueueScript({ kind: 'stream', fragments: ['{}'], delayMs: 0 });
    const guardrail = { identifier: 'gr1234abcd', version: '3' };
    const conversation = {
      ...request,
      messages: [
        { role: 'user' as const, text: 'VPNにつながらない' },
        { role: 'assistant' as const, text: 'どの拠点ですか？' },
        { role: 'user' as const, text: 'チケット: …\n問い合わせ: 本社' },
      ],
      cacheCheckpoints: { afterTool: false, afterSystem: false, afterMessage: 2 },
    };
    await collect(
      createBedrockChatModel({ client, modelId: 'offline.x', guardrail }).stream(conversation),
    );
    const sent = bedrock.converseRequests.at(-1)?.body;
    expect(sent?.guardrailConfig).toEqual({
      guardrailIdentifier: 'gr1234abcd',
      guardrailVersion: '3',
      streamProcessingMode: 'async',
    });
    expect(sent?.system).toEqual([{ text: 'system prompt' }]);
    expect(sent?.messages).toEqual([
      { role: 'user', content: [{ text: 'VPNにつながらない' }] },
      { role: 'assistant', content: [{ text: 'どの拠点ですか？' }] },
      {
        role: 'user',
        content: [
          { guardContent: { text: { text: 'チケット: …\n問い合わせ: 本社' } } },
          { cachePoint: { type: 'default' } },
        ],
      },
    ]);

    // Without one, nothing of it is sent.
    bedrock.enqueueScript({ kind: 'stream', fragments: ['{}'], delayMs: 0 });
    await collect(createBedrockChatModel({ client, modelId: 'offline.x' }).stream(conversation));
    const plain = bedrock.converseRequests.at(-1)?.body;
    expect(plain?.guardrailConfig).toBeUndefined();
    expect(JSON.stringify(plain)).not.toContain('guardContent');
  });

  it('maps a guardrail intervention', async () => {
    bedrock.enqueueScript({
      kind: 'stream',
      fragments: [],
      stopReason: 'guardrail_intervened',
      delayMs: 0,
    });
    const events = await collect(
      createBedrockChatModel({ client, modelId: 'offline.x' }).stream(request),
    );
    expect(events).toContainEqual({ type: 'stop', reason: 'guardrail_intervened' });
  });

  it('turns throttling after the SDK retries into a retryable ChatModelError', async () => {
    bedrock.enqueueScript({ kind: 'throttle' });
    bedrock.enqueueScript({ kind: 'throttle' });
    const failure = await collect(
      createBedrockChatModel({ client, modelId: 'offline.x' }).stream(request),
    ).catch((error) => error);
    expect(failure).toBeInstanceOf(ChatModelError);
    expect(failure).toMatchObject({ code: 'model_throttled', retryable: true });
  });

  it('turns a mid-stream exception into a retryable stream failure after the fragments before it', async () => {
    bedrock.enqueueScript({
      kind: 'stream',
      fragments: ['{"a":', '1', '}'],
      failAfter: 2,
      delayMs: 0,
    });
    const seen: ChatModelEvent[] = [];
    const failure = await (async () => {
      for await (const event of createBedrockChatModel({ client, modelId: 'offline.x' }).stream(
        request,
      ))
        seen.push(event);
    })().catch((error) => error);
    expect(seen).toEqual([
      { type: 'tool_input', fragment: '{"a":' },
      { type: 'tool_input', fragment: '1' },
    ]);
    expect(failure).toMatchObject({
      name: 'ChatModelError',
      code: 'model_stream_failed',
      retryable: true,
    });
  });

  it('ends when aborted after the response started, before the model says anything more', async () => {
    // The script's first event would come after 20 s: only the abort can end the stream sooner
    // (over HTTP/1.1 the SDK stops listening once the request is sent; the function's transport
    // ends the response itself, ADR 0035).
    bedrock.enqueueScript({
      kind: 'stream',
      fragments: ['{', '}'],
      initialDelayMs: 20_000,
      delayMs: 0,
    });
    const controller = new AbortController();
    // Aborted once the response's headers are in (the SDK's deserialize step has the response),
    // not after a fixed delay: on a busy machine the headers can take longer than any delay.
    const abortingClient = new BedrockRuntimeClient({
      endpoint: bedrock.runtimeEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
      requestHandler: bedrockTransport(),
    });
    abortingClient.middlewareStack.add(
      (next) => async (args) => {
        const result = await next(args);
        controller.abort();
        return result;
      },
      { step: 'deserialize', name: 'abortOnceTheResponseStarted' },
    );
    const ended = await collect(
      createBedrockChatModel({ client: abortingClient, modelId: 'offline.x' }).stream({
        ...request,
        signal: controller.signal,
      }),
    ).then(
      (events) => ({ events }),
      (error: unknown) => ({ events: [], error }),
    );
    abortingClient.destroy();
    expect(controller.signal.aborted).toBe(true);
    // Ended by the abort: nothing of the answer arrived (had the stream gone on, the script's
    // events would have, after 20 s). The core reads either ending as its abort: it checks its
    // own signal.
    expect(ended.events).toEqual([]);
  });
});
