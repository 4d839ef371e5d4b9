import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsNamed, fetchConversation, postChat } from '../support/chat-client.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';

// The spend guard (observability issue): a per-user daily token budget, enforced by a conditional
// DynamoDB counter before anything is written or a model is called.

let chat: InProcessApi;
beforeAll(async () => {
  // One answer of the offline responder uses a few thousand tokens: the second chat is over.
  // The function's own budget and store on DynamoDB Local: the counter's condition is the rule.
  chat = await startInProcessApi({
    store: 'dynamodb',
    functionEnvironment: { DAILY_TOKEN_BUDGET: '1000' },
  });
});
afterAll(() => chat?.stop());

describe('the daily token budget', () => {
  it('answers while under it, then refuses with 429 and when it resets, writing nothing', async () => {
    const user = 'big-spender';
    const first = await postChat(chat.api, { message: 'VPNにつながらない' }, { user });
    expect(eventsNamed(first, 'result')).toHaveLength(1);
    const conversationId = eventsNamed(first, 'meta')[0]?.conversationId as string;
    const calls = chat.bedrock.converseRequests.length;
    const retrievals = chat.bedrock.retrieveRequests.length;

    const refused = await postChat(
      chat.api,
      { conversationId, message: 'プリンターも動かない' },
      { user },
    );
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({
      error: { code: 'daily_budget_exceeded', message: expect.stringContaining('midnight UTC') },
    });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    expect(chat.bedrock.converseRequests.length).toBe(calls);
    expect(chat.bedrock.retrieveRequests.length).toBe(retrievals);
    expect((await fetchConversation(chat.api, conversationId, user)).turns).toHaveLength(2);
  });

  it('is per user: another user still gets answers', async () => {
    await postChat(chat.api, { message: 'Teamsに入れない' }, { user: 'spender-a' });
    const other = await postChat(chat.api, { message: 'Teamsに入れない' }, { user: 'spender-b' });
    expect(other.status).toBe(200);
    expect(eventsNamed(other, 'result')).toHaveLength(1);
  });
});
