import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../local/start-local-stack.js';
import { eventsNamed, fetchConversation, postChat } from '../support/chat-client.js';
import { startTestStack } from '../support/start-test-stack.js';

// The spend guard (observability issue): a per-user daily token budget, enforced by a conditional
// DynamoDB counter before anything is written or a model is called.

type Stack = LocalStack & { bedrock: NonNullable<LocalStack['bedrock']> };
let stack: Stack;
beforeAll(async () => {
  // One answer of the offline responder uses a few thousand tokens: the second chat is over.
  stack = await startTestStack({ functionEnvironment: { DAILY_TOKEN_BUDGET: '1000' } });
});
afterAll(() => stack?.stop());

describe('the daily token budget', () => {
  it('answers while under it, then refuses with 429 and when it resets, writing nothing', async () => {
    const user = 'big-spender';
    const first = await postChat(stack.url, { message: 'VPNにつながらない' }, { user });
    expect(eventsNamed(first, 'result')).toHaveLength(1);
    const conversationId = eventsNamed(first, 'meta')[0]?.conversationId as string;
    const calls = stack.bedrock.converseRequests.length;
    const retrievals = stack.bedrock.retrieveRequests.length;

    const refused = await postChat(
      stack.url,
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
    expect(stack.bedrock.converseRequests.length).toBe(calls);
    expect(stack.bedrock.retrieveRequests.length).toBe(retrievals);
    expect((await fetchConversation(stack.url, conversationId, user)).turns).toHaveLength(2);
  });

  it('is per user: another user still gets answers', async () => {
    await postChat(stack.url, { message: 'Teamsに入れない' }, { user: 'spender-a' });
    const other = await postChat(stack.url, { message: 'Teamsに入れない' }, { user: 'spender-b' });
    expect(other.status).toBe(200);
    expect(eventsNamed(other, 'result')).toHaveLength(1);
  });
});
