import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InsightsStore } from '../../functions/insights/ports.js';
import { eventsNamed, postChat } from '../support/chat-client.js';
import { createInMemoryInsightsStore } from '../support/in-memory-insights-store.js';
import { type InProcessChatApi, startInProcessChatApi } from '../support/in-process-api.js';

/**
 * The insights aggregates recorded where events happen (ADR 0022), through the API in process
 * (in-memory stores, the local Bedrock endpoint): a finished chat, feedback on its answer, a
 * delete; and a failing insights store never fails the chat or the feedback.
 */

const insights = createInMemoryInsightsStore();
const scope = { tenantId: 'local' };
let chat: InProcessChatApi;
beforeAll(async () => {
  chat = await startInProcessChatApi({ overrides: { insights } });
});
afterAll(() => chat?.stop());

async function answered(user: string, message: string) {
  const response = await postChat(chat.api, { message }, { user });
  const result = eventsNamed(response, 'result')[0] as {
    conversationId: string;
    seq: number;
    results?: { issue_id: string }[];
  };
  if (!result) throw new Error(`no result for ${message}: ${response.text.slice(0, 300)}`);
  return result;
}

const feedback = (user: string, conversationId: string, seq: number, body: unknown) =>
  chat.api.call('POST', `/api/conversations/${conversationId}/turns/${seq}/feedback`, body, {
    user,
  });

describe('insights recorded by the API', () => {
  it('counts a chat with its cited tickets, then the feedback on its answer as a delta', async () => {
    const before = await insights.readInsights(scope, 30, new Date());
    const answer = await answered('insights-a', 'プリンターで印刷できません。トレイに紙はあります');
    const cited = answer.results?.map((card) => card.issue_id) ?? [];
    expect(cited.length).toBeGreaterThan(0);
    let body = await insights.readInsights(scope, 30, new Date());
    expect(body.activity.totals.chats).toBe(before.activity.totals.chats + 1);
    expect(body.activity.totals.answers).toBe(before.activity.totals.answers + 1);
    expect(body.activity.totals.inputTokens).toBeGreaterThan(before.activity.totals.inputTokens);
    expect(body.activity.totals.timeToFirstTokenP50Ms).toBeGreaterThan(0);
    expect(body.helped.mostSolved.map((use) => use.issueId)).toContain(cited[0]);

    const down = await feedback('insights-a', answer.conversationId, answer.seq, {
      rating: 'down',
      reason: 'irrelevant_tickets',
    });
    expect(down.status).toBe(200);
    body = await insights.readInsights(scope, 30, new Date());
    expect(body.activity.totals.ratedDown).toBe(before.activity.totals.ratedDown + 1);
    const gap = body.gaps.find((entry) => entry.byReason.rated_down > 0);
    expect(gap?.topicKey).toMatch(/\|printer$/);

    const solved = await feedback('insights-a', answer.conversationId, answer.seq, {
      rating: 'up',
      helpfulTicketIds: [cited[0]],
    });
    expect(solved.status).toBe(200);
    body = await insights.readInsights(scope, 30, new Date());
    expect(body.activity.totals.ratedDown).toBe(before.activity.totals.ratedDown);
    expect(body.activity.totals.ratedUp).toBe(before.activity.totals.ratedUp + 1);
    expect(body.helped.mostSolved.find((use) => use.issueId === cited[0])?.solved).toBe(1);
    expect(await insights.listSolvedInquiries(scope)).toContainEqual({
      text: 'プリンターで印刷できません。トレイに紙はあります',
      issueIds: [cited[0]],
      day: new Date().toISOString().slice(0, 10),
    });
  });

  it('keeps a gap example scrubbed of the owner, and forgets it when the conversation is deleted', async () => {
    const user = 'tkobayashi';
    // No sample ticket shares a word with this: nothing is retrieved, the retrieval is weak.
    const answer = await answered(user, 'tkobayashi: zqxwv frobnicator qwplm');
    let body = await insights.readInsights(scope, 30, new Date());
    const examples = body.gaps.flatMap((gap) => gap.examples);
    const example = examples.find((entry) => entry.text.includes('frobnicator'));
    expect(example, JSON.stringify(body.gaps)).toBeDefined();
    expect(example?.text).not.toContain('tkobayashi');
    expect(
      body.gaps.find((gap) => gap.examples.includes(example as never))?.byReason,
    ).toMatchObject({
      weak_retrieval: 1,
    });
    expect(example?.ownerHash).toMatch(/^[0-9a-f]{16}$/);

    const removed = await chat.api.call(
      'DELETE',
      `/api/conversations/${answer.conversationId}`,
      undefined,
      { user },
    );
    expect(removed.status).toBe(204);
    body = await insights.readInsights(scope, 30, new Date());
    expect(
      body.gaps.flatMap((gap) => gap.examples).some((entry) => entry.text.includes('frobnicator')),
    ).toBe(false);
  });
});

describe('an insights store that fails', () => {
  const failing: InsightsStore = {
    ...createInMemoryInsightsStore(),
    recordChat: () => Promise.reject(new Error('the insights table is unavailable')),
    recordFeedback: () => Promise.reject(new Error('the insights table is unavailable')),
  };
  let broken: InProcessChatApi;
  beforeAll(async () => {
    broken = await startInProcessChatApi({ overrides: { insights: failing } });
  });
  afterAll(() => broken?.stop());

  it('never fails the chat or the feedback', async () => {
    const response = await postChat(broken.api, { message: 'VPNにつながらない' }, { user: 'b' });
    const result = eventsNamed(response, 'result')[0] as { conversationId: string; seq: number };
    expect(result).toBeDefined();
    const rated = await broken.api.call(
      'POST',
      `/api/conversations/${result.conversationId}/turns/${result.seq}/feedback`,
      { rating: 'up' },
      { user: 'b' },
    );
    expect(rated.status).toBe(200);
  });
});
