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
    // A daily budget, so a chat's first write is the budget's counter (ADR 0012).
    functionEnvironment: { DYNAMODB_ENDPOINT: dynamo.url, DAILY_TOKEN_BUDGET: '100000000' },
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

  it('answers 503 store_unavailable on every route that reads or writes a table', async () => {
    const user = 'outage-every-route';
    // A conversation to name, made while the store is up (its answer has a mail draft).
    stack.bedrock.enqueueScript(
      scriptedAnswer({
        response_type: 'results',
        general_advice: 'VPNクライアントを再起動してください。',
        results: [],
        mail_draft: 'VPNクライアントを再起動してください。',
      }),
    );
    const chat = await postChat(stack.url, { message: 'VPNにつながらない' }, { user });
    expect(chat.status).toBe(200);
    const meta = eventsNamed(chat, 'meta')[0] as {
      conversationId: string;
      userSeq: number;
      inquiryId?: string;
    };
    const id = meta.conversationId;
    const answerSeq = meta.userSeq + 1;
    const inquiryId = meta.inquiryId ?? id;
    const turn = `/api/conversations/${id}/turns/${answerSeq}`;
    // A gap example id of the right form (opaque, 22 base64url characters).
    const GAP_EXAMPLE = 'A'.repeat(22);
    const knowledge = {
      subject: 'VPNにつながらない',
      category: 'Network',
      inquiry: 'VPNにつながらない',
      resolution: ['VPNクライアントを再起動する'],
    };
    // Every route of the table (functions/api/routes.ts) with a body it accepts, so nothing but
    // the store can refuse it; `GET /api/me` reads no table and is the one that still answers.
    const routes: [method: string, path: string, body?: unknown][] = [
      ['POST', '/api/chat', { message: 'VPNにつながらない' }],
      ['POST', '/api/chat', { message: 'まだつながらない', conversationId: id }],
      ['GET', '/api/conversations'],
      ['GET', '/api/insights?days=30'],
      ['POST', `/api/insights/gap-examples/${GAP_EXAMPLE}/knowledge-draft`, {}],
      ['POST', `/api/insights/gap-examples/${GAP_EXAMPLE}/knowledge`, knowledge],
      ['POST', '/api/knowledge', { conversationId: id, inquiryId, ...knowledge }],
      ['POST', `/api/conversations/${id}/inquiries/${inquiryId}/knowledge-draft`, {}],
      ['POST', `/api/conversations/${id}/inquiries/${inquiryId}/handoff`, {}],
      ['POST', `${turn}/feedback`, { rating: 'up' }],
      ['PUT', `${turn}/mail-draft`, { text: '再起動をお願いします。' }],
      ['POST', `${turn}/mail-draft/refine`, { style: 'shorter' }],
      ['POST', `${turn}/mail-draft/actions`, { action: 'copy' }],
      ['POST', `/api/conversations/${id}/stop`, { userSeq: meta.userSeq }],
      ['GET', `/api/conversations/${id}`],
      ['PATCH', `/api/conversations/${id}`, { title: 'VPN' }],
      ['DELETE', `/api/conversations/${id}`],
    ];
    await dynamo.cut();
    const answers: string[] = [];
    try {
      for (const [method, path, body] of routes) {
        const response = await callApi(stack.url, method, path, body, { user });
        const code = (response.json as { error?: { code?: string } } | undefined)?.error?.code;
        answers.push(
          `${method} ${path.split('?')[0]} ${response.status} ${code ?? ''} ${response.headers.get('retry-after') ?? '-'}`,
        );
      }
      const me = await callApi(stack.url, 'GET', '/api/me', undefined, { user });
      expect(me.status).toBe(200);
    } finally {
      await dynamo.restore();
    }
    expect(answers).toEqual(
      routes.map(([method, path]) => `${method} ${path.split('?')[0]} 503 store_unavailable 5`),
    );
    // Nothing was changed: the conversation is there with its two turns.
    const stored = await callApi(stack.url, 'GET', `/api/conversations/${id}`, undefined, {
      user,
    });
    expect((stored.json as { turns: unknown[] }).turns).toHaveLength(2);
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
