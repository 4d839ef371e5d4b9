import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../local/start-local-stack.js';
import { callApi, eventsNamed, fetchConversation, postChat } from '../support/chat-client.js';
import { slowAdvice as advice, slowAnswer } from '../support/scripted-answer.js';
import { startTestStack } from '../support/start-test-stack.js';

// Exactly one answer per question (issue #14, items 1, 2 and 7), through the local stack:
// DynamoDB Local, the local Bedrock endpoint and the real handler.

type Stack = LocalStack & { bedrock: NonNullable<LocalStack['bedrock']> };
let stack: Stack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(() => stack?.stop());

async function storedTurns(conversationId: string, user: string) {
  return (await fetchConversation(stack.url, conversationId, user)).turns;
}

async function conversationCount(user: string): Promise<number> {
  const response = await callApi(stack.url, 'GET', '/api/conversations', undefined, { user });
  return (response.json as { items: unknown[] }).items.length;
}

describe('one generation per clientMessageId', () => {
  // Before the generation claim: one user turn, ten answers, ten model calls.
  it('answers ten concurrent copies of one message with one model call and one stored answer', async () => {
    const user = 'ten-copies';
    const calls = stack.bedrock.converseRequests.length;
    stack.bedrock.enqueueScript(slowAnswer());
    const body = { message: 'プリンターが印刷しない', clientMessageId: 'ten-copies-0001' };
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => postChat(stack.url, body, { user })),
    );

    expect(stack.bedrock.converseRequests.length - calls).toBe(1);
    for (const response of responses) {
      expect(response.status).toBe(200);
      expect(eventsNamed(response, 'result')[0]).toMatchObject({
        general_advice: advice,
        status: 'complete',
      });
    }
    const conversationIds = new Set(
      responses.map((response) => eventsNamed(response, 'meta')[0]?.conversationId),
    );
    expect(conversationIds.size).toBe(1);
    const turns = await storedTurns([...conversationIds][0] as string, user);
    expect(turns.map((turn) => [turn.role, turn.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
  }, 60_000);

  // Before: the web app's Retry after a dropped connection stored a second answer.
  it('attaches a retry sent while the first copy is still answering to that answer', async () => {
    const user = 'mid-answer-retry';
    const created = await postChat(stack.url, { message: 'VPNにつながらない' }, { user });
    const conversationId = eventsNamed(created, 'meta')[0]?.conversationId as string;
    const calls = stack.bedrock.converseRequests.length;
    stack.bedrock.enqueueScript(slowAnswer());
    const body = { conversationId, message: 'プリンターも印刷しない', clientMessageId: 'mid-0001' };

    let retry: Promise<Awaited<ReturnType<typeof postChat>>> | undefined;
    const first = await postChat(stack.url, body, {
      user,
      onEvent: (event) => {
        if (event.event === 'token' && !retry) retry = postChat(stack.url, body, { user });
      },
    });
    const second = await (retry as NonNullable<typeof retry>);

    expect(stack.bedrock.converseRequests.length - calls).toBe(1);
    expect(eventsNamed(first, 'result')[0]).toMatchObject({ general_advice: advice });
    expect(eventsNamed(second, 'result')[0]).toMatchObject({
      general_advice: advice,
      status: 'complete',
    });
    // The retry waited with the stream open and replayed the whole answer once it was stored.
    expect(eventsNamed(second, 'progress').at(-1)).toEqual({ step: 'generating' });
    expect(
      eventsNamed(second, 'token')
        .map((token) => token.content)
        .join(''),
    ).toBe(advice);
    const turns = await storedTurns(conversationId, user);
    expect(turns.map((turn) => [turn.role, turn.status])).toEqual([
      ['user', 'complete'],
      ['assistant', 'complete'],
      ['user', 'complete'],
      ['assistant', 'complete'],
    ]);
  }, 60_000);

  it('generates again for a retry of a message whose first answer failed', async () => {
    const user = 'retry-after-failure';
    for (let attempt = 0; attempt < 3; attempt++) stack.bedrock.enqueueScript({ kind: 'throttle' });
    const body = { message: 'Teamsに入れない', clientMessageId: 'after-failure-0001' };
    const failed = await postChat(stack.url, body, { user });
    expect(eventsNamed(failed, 'error')[0]).toMatchObject({ code: 'model_throttled' });
    const conversationId = eventsNamed(failed, 'meta')[0]?.conversationId as string;

    // The failed copy released its claim: the retry does not wait for it to time out.
    const calls = stack.bedrock.converseRequests.length;
    const retried = await postChat(stack.url, { ...body, conversationId }, { user });
    expect(stack.bedrock.converseRequests.length - calls).toBe(1);
    expect(eventsNamed(retried, 'result')[0]).toMatchObject({ status: 'complete' });
  });
});

describe('a clientMessageId names one message', () => {
  // Before: 200 with the old answer replayed, and the new message silently dropped.
  it('rejects the id with another message, before anything is written', async () => {
    const user = 'reused-text';
    const first = await postChat(
      stack.url,
      { message: 'Outlookが起動しない', clientMessageId: 'reused-0001' },
      { user },
    );
    const conversationId = eventsNamed(first, 'meta')[0]?.conversationId as string;
    const calls = stack.bedrock.converseRequests.length;

    const reused = await postChat(
      stack.url,
      { conversationId, message: 'Wi-Fiが遅い', clientMessageId: 'reused-0001' },
      { user },
    );
    expect(reused.status).toBe(422);
    expect(reused.json).toEqual({
      error: {
        code: 'client_message_id_reused',
        message: expect.stringContaining('clientMessageId'),
      },
    });
    expect(stack.bedrock.converseRequests.length).toBe(calls);
    expect(await storedTurns(conversationId, user)).toHaveLength(2);
  });

  // Before: the answer for conversation A came back to a request for conversation B.
  it('rejects the id sent for another conversation, or as a new one, when it named a later turn', async () => {
    const user = 'reused-conversation';
    const a = await postChat(stack.url, { message: 'VPNにつながらない' }, { user });
    const conversationA = eventsNamed(a, 'meta')[0]?.conversationId as string;
    const followUp = {
      conversationId: conversationA,
      message: 'まだだめです',
      clientMessageId: 'follow-up-0002',
    };
    await postChat(stack.url, followUp, { user });
    const b = await postChat(stack.url, { message: 'プリンターが止まった' }, { user });
    const conversationB = eventsNamed(b, 'meta')[0]?.conversationId as string;

    const elsewhere = await postChat(
      stack.url,
      { ...followUp, conversationId: conversationB },
      { user },
    );
    expect(elsewhere.status).toBe(422);
    const asNew = await postChat(
      stack.url,
      { message: followUp.message, clientMessageId: followUp.clientMessageId },
      { user },
    );
    expect(asNew.status).toBe(422);

    expect(await storedTurns(conversationA, user)).toHaveLength(4);
    expect(await storedTurns(conversationB, user)).toHaveLength(2);
    expect(await conversationCount(user)).toBe(2);
  });

  it('still replays a retried request that created its conversation', async () => {
    const user = 'retried-creation';
    const body = { message: 'Boxに共有できない', clientMessageId: 'creation-0001' };
    const first = await postChat(stack.url, body, { user });
    const calls = stack.bedrock.converseRequests.length;
    const retried = await postChat(stack.url, body, { user });
    expect(retried.status).toBe(200);
    expect(stack.bedrock.converseRequests.length).toBe(calls);
    expect(eventsNamed(retried, 'meta')[0]?.conversationId).toBe(
      eventsNamed(first, 'meta')[0]?.conversationId,
    );
    expect(await conversationCount(user)).toBe(1);
  });
});

describe('deleting a conversation mid-stream', () => {
  // Before: `save_failed, retryable: true`, and a retry could only 404.
  it('ends the stream saying the conversation was deleted, not retryable', async () => {
    const user = 'deleted-mid-stream';
    stack.bedrock.enqueueScript(slowAnswer());
    let conversationId = '';
    let deleteStatus = 0;
    const response = await postChat(
      stack.url,
      { message: 'PCが起動しない' },
      {
        user,
        onEvent: async (event) => {
          if (event.event === 'meta') conversationId = event.data.conversationId as string;
          if (event.event !== 'token' || deleteStatus !== 0) return;
          deleteStatus = -1;
          const deleted = await callApi(
            stack.url,
            'DELETE',
            `/api/conversations/${conversationId}`,
            undefined,
            { user },
          );
          deleteStatus = deleted.status;
        },
      },
    );
    expect(deleteStatus).toBe(204);
    expect(response.events.at(-1)).toEqual({
      event: 'error',
      data: { code: 'conversation_deleted', message: expect.any(String), retryable: false },
    });
    expect(eventsNamed(response, 'result')).toEqual([]);
    expect(await conversationCount(user)).toBe(0);
  });
});
