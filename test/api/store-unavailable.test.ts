import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { LocalStack } from '../../local/start-local-stack.js';
import { callApi, eventsNamed, postChat } from '../support/chat-client.js';
import { scriptedAnswer } from '../support/scripted-answer.js';
import { startTestStack } from '../support/start-test-stack.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

type Stack = LocalStack & { bedrock: NonNullable<LocalStack['bedrock']> };
let stack: Stack;
let dynamo: TcpProxy;
beforeAll(async () => {
  // The function reaches DynamoDB Local only through this proxy, so the test can cut it off.
  dynamo = await startTcpProxy(inject('dynamoDbEndpoint') ?? '');
  stack = await startTestStack({
    functionEnvironment: { DYNAMODB_ENDPOINT: dynamo.url },
  });
});
afterAll(async () => {
  await stack?.stop();
  await dynamo?.close();
});

const listOf = async (user: string) =>
  (await callApi(stack.url, 'GET', '/api/conversations', undefined, { user })).json as {
    items: { conversationId: string }[];
  };

describe('DynamoDB unavailable', () => {
  it('answers 503 store_unavailable with Retry-After before the first byte, and writes nothing', async () => {
    const user = 'outage-before';
    await dynamo.cut();
    try {
      const calls = stack.bedrock.converseRequests.length;
      const chat = await postChat(stack.url, { message: 'VPNにつながらない' }, { user });
      expect(chat.status).toBe(503);
      expect(chat.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(chat.json).toEqual({
        error: { code: 'store_unavailable', message: expect.any(String) },
      });
      expect(stack.bedrock.converseRequests.length).toBe(calls);

      const list = await callApi(stack.url, 'GET', '/api/conversations', undefined, { user });
      expect(list.status).toBe(503);
      expect(list.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(list.json).toMatchObject({ error: { code: 'store_unavailable' } });
    } finally {
      await dynamo.restore();
    }
    expect(await listOf(user)).toEqual({ items: [] });
  });

  it('ends a stream whose store goes away after the first byte with a retryable error event', async () => {
    const user = 'outage-during';
    stack.bedrock.enqueueScript(
      scriptedAnswer(
        {
          response_type: 'results',
          general_advice: 'まずVPNクライアントを再起動してください。'.repeat(4),
          results: [],
        },
        { size: 5, delayMs: 15 },
      ),
    );
    let cut: Promise<void> | undefined;
    const response = await postChat(
      stack.url,
      { message: 'VPNにつながらない' },
      {
        user,
        onEvent: (event) => {
          if (event.event === 'token' && !cut) cut = dynamo.cut();
        },
      },
    );
    await cut;
    await dynamo.restore();
    expect(response.status).toBe(200);
    expect(eventsNamed(response, 'token').length).toBeGreaterThan(0);
    expect(eventsNamed(response, 'result')).toEqual([]);
    expect(response.events.at(-1)).toEqual({
      event: 'error',
      data: { code: 'store_unavailable', message: expect.any(String), retryable: true },
    });
    // The user turn was written before the outage; the answer could not be.
    const { conversationId } = eventsNamed(response, 'meta')[0] as { conversationId: string };
    const stored = await callApi(
      stack.url,
      'GET',
      `/api/conversations/${conversationId}`,
      undefined,
      { user },
    );
    expect((stored.json as { turns: { role: string }[] }).turns.map((turn) => turn.role)).toEqual([
      'user',
    ]);
  });
});
