import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, eventsNamed, fetchConversation, postChat } from '../support/chat-client.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { scriptedAnswer } from '../support/scripted-answer.js';

// A page loaded while an answer is being generated (a reload, another tab) learns it from
// `GET /api/conversations/{id}` (`answering`): the API in process with the DynamoDB store, whose
// marker carries the generation lease that `answering` reports.

let chat: InProcessApi;
beforeAll(async () => {
  chat = await startInProcessApi({ store: 'dynamodb' });
});
afterAll(() => chat?.stop());

const advice = 'ドライバーを入れ直してください。'.repeat(6);
/** About 2 s of streaming: long enough to look at the conversation meanwhile. */
const slowAnswer = (options: { failAfter?: number } = {}) =>
  scriptedAnswer(
    { response_type: 'results', general_advice: advice, results: [] },
    { size: 5, delayMs: 50, ...options },
  );

interface Detail {
  version: number;
  turns: { seq: number; role: string }[];
  answering?: { seq: number; until: string };
}

async function firstConversationId(user: string): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const list = await callApi(chat.api, 'GET', '/api/conversations', undefined, { user });
    const id = (list.json as { items: { conversationId: string }[] }).items[0]?.conversationId;
    if (id) return id;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('the conversation never appeared');
}

async function detailOf(user: string, conversationId: string): Promise<Detail> {
  return (await fetchConversation(chat.api, conversationId, user)) as Detail;
}

describe('an answer in flight', () => {
  it('is announced on the conversation until the answer is stored', async () => {
    const user = 'in-flight';
    chat.bedrock.enqueueScript(slowAnswer());
    const answer = postChat(
      chat.api,
      { message: 'プリンターが印刷しない', clientMessageId: 'in-flight-0001' },
      { user },
    );
    const conversationId = await firstConversationId(user);
    const during = await detailOf(user, conversationId);
    expect(during.turns.map((turn) => turn.role)).toEqual(['user']);
    expect(during.answering?.seq).toBe(1);
    expect(Date.parse(during.answering?.until ?? '')).toBeGreaterThan(Date.now());

    const response = await answer;
    expect(eventsNamed(response, 'result')).toHaveLength(1);
    const after = await detailOf(user, conversationId);
    expect(after.turns.map((turn) => turn.role)).toEqual(['user', 'assistant']);
    expect(after.answering).toBeUndefined();
  });

  // Before (issue #24, item 5): only a message with a clientMessageId announced its answer, so a
  // regenerate sent meanwhile was accepted, and the next prompt carried both versions.
  it('is announced for a message sent without a clientMessageId too, and refuses a regenerate meanwhile', async () => {
    const user = 'in-flight-unclaimed';
    const question = 'VPNが切れる';
    chat.bedrock.enqueueScript(slowAnswer());
    const answer = postChat(chat.api, { message: question }, { user });
    const conversationId = await firstConversationId(user);
    const during = await detailOf(user, conversationId);
    expect(during.answering?.seq).toBe(1);

    const regenerate = await postChat(
      chat.api,
      { conversationId, message: question, supersedes: 1 },
      { user },
    );
    expect(regenerate.status).toBe(409);
    expect(regenerate.json).toMatchObject({ error: { code: 'answer_in_progress' } });
    expect(eventsNamed(await answer, 'result')).toHaveLength(1);
    expect((await detailOf(user, conversationId)).turns).toHaveLength(2);

    // The next prompt holds the question once: no second version was stored.
    const next = await postChat(chat.api, { conversationId, message: 'Wi-Fiも遅い' }, { user });
    expect(eventsNamed(next, 'result')).toHaveLength(1);
    const prompt = JSON.stringify(chat.bedrock.converseRequests.at(-1)?.body);
    expect(prompt.split(question)).toHaveLength(2);
  });

  it('ends with a failed answer too', async () => {
    const user = 'in-flight-failed';
    chat.bedrock.enqueueScript(slowAnswer({ failAfter: 0 }));
    const response = await postChat(
      chat.api,
      { message: 'Teamsが落ちる', clientMessageId: 'in-flight-failed-1' },
      { user },
    );
    expect(eventsNamed(response, 'error')).toHaveLength(1);
    const conversationId = await firstConversationId(user);
    const after = await detailOf(user, conversationId);
    expect(after.turns.map((turn) => turn.role)).toEqual(['user', 'assistant']);
    expect(after.answering).toBeUndefined();
  });
});
