import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insightsSchema } from '../../functions/contract/insights.js';
import type { InsightsStore } from '../../functions/insights/ports.js';
import { createInsightsRecorder } from '../../functions/insights/record-insights.js';
import { scrubPersonalData } from '../../functions/knowledge/personal-data-scrub.js';
import { draftScrubOptions, inquiryTranscript } from '../../functions/knowledge/ticket-draft.js';
import { callApi, eventsNamed, postChat } from '../support/chat-client.js';
import { storedTurn } from '../support/chat-core-harness.js';
import { createInMemoryInsightsStore } from '../support/in-memory-insights-store.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { silentLog } from '../support/silent-log.js';

/**
 * The insights aggregates recorded where events happen (ADR 0022), through the API in process
 * (in-memory stores, the local Bedrock endpoint): a finished chat, feedback on its answer, what
 * staff did with its e-mail draft (ADR 0023), a delete; and a failing insights store never fails
 * the chat, the feedback or the draft's actions.
 */

const insights = createInMemoryInsightsStore();
const scope = { tenantId: 'local' };
let chat: InProcessApi;
beforeAll(async () => {
  chat = await startInProcessApi({ overrides: { insights } });
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
  return { ...result, response };
}

const draftCall = (
  user: string,
  method: 'PUT' | 'POST',
  answer: { conversationId: string; seq: number },
  rest: '' | '/refine' | '/actions',
  body: unknown,
) =>
  callApi(
    chat.api,
    method,
    `/api/conversations/${answer.conversationId}/turns/${answer.seq}/mail-draft${rest}`,
    body,
    { user },
  );

const feedback = (user: string, conversationId: string, seq: number, body: unknown) =>
  callApi(chat.api, 'POST', `/api/conversations/${conversationId}/turns/${seq}/feedback`, body, {
    user,
  });

describe('insights recorded by the API', () => {
  it('counts a chat with its cited tickets, then the feedback on its answer as a delta', async () => {
    const before = await insights.readInsights(scope, 30, new Date());
    const answer = await answered('insights-a', 'プリンターで印刷できません。トレイに紙はあります');
    const cited = answer.results?.map((card) => card.issue_id) ?? [];
    expect(cited.length).toBeGreaterThan(0);
    let body = await insights.readInsights(scope, 30, new Date());
    // The subject is the Knowledge Base's, as the chat's kb_chunks showed it.
    const chunks = eventsNamed(answer.response, 'kb_chunks')[0] as {
      chunks: { issue_id: string; subject: string }[];
    };
    const kbSubject = chunks.chunks.find((chunk) => chunk.issue_id === cited[0])?.subject;
    expect(kbSubject).toBeTruthy();
    expect(body.helped.mostSolved.find((use) => use.issueId === cited[0])?.subject).toBe(
      kbSubject?.replace(/\s+/g, ' ').trim(),
    );
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

  it("counts what staff did with an answer's draft: accepted and changed once, every action, the rates on GET /api/insights", async () => {
    const user = 'insights-drafts';
    const replies = async () => {
      const response = await callApi(chat.api, 'GET', '/api/insights?days=30', undefined, { user });
      expect(response.status).toBe(200);
      return insightsSchema.parse(response.json).replies.totals;
    };
    const before = await replies();
    const sent = await answered(user, 'VPNにつながらない');
    // A second answer whose draft nobody touches: a draft answer, never an accepted one.
    await answered(user, 'プリンターで印刷できません');
    expect((await replies()).answersWithDraft).toBe(before.answersWithDraft + 2);

    // Copied twice, opened in the mail client, then edited and refined: one accepted answer,
    // one changed, one accepted and changed.
    for (const action of ['copy', 'copy', 'open_in_mail']) {
      expect((await draftCall(user, 'POST', sent, '/actions', { action })).status).toBe(200);
    }
    expect((await draftCall(user, 'PUT', sent, '', { text: '修正した下書きです。' })).status).toBe(
      200,
    );
    const refined = await draftCall(user, 'POST', sent, '/refine', { style: 'shorter' });
    expect(eventsNamed(refined, 'mail_draft_version')).toHaveLength(1);
    // Refused before anything was stored: counted nowhere.
    const refused = await draftCall(user, 'POST', { ...sent, seq: 99 }, '/actions', {
      action: 'copy',
    });
    expect(refused.status).toBe(404);

    const after = await replies();
    expect({
      answersWithDraft: after.answersWithDraft - before.answersWithDraft,
      accepted: after.accepted - before.accepted,
      changed: after.changed - before.changed,
      acceptedChanged: after.acceptedChanged - before.acceptedChanged,
      copies: after.copies - before.copies,
      mailOpens: after.mailOpens - before.mailOpens,
      edits: after.edits - before.edits,
      refinements: after.refinements - before.refinements,
    }).toEqual({
      answersWithDraft: 2,
      accepted: 1,
      changed: 1,
      acceptedChanged: 1,
      copies: 2,
      mailOpens: 1,
      edits: 1,
      refinements: 1,
    });
    expect(after.acceptanceRate).toBe(after.accepted / after.answersWithDraft);
    expect(after.editRate).toBe(after.acceptedChanged / after.accepted);
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

    // Rated 👎 with irrelevant_tickets later: a second reason, still one inquiry (issue #28).
    const gapOf = (insightsBody: typeof body) =>
      insightsBody.gaps.find((gap) =>
        gap.examples.some((entry) => entry.text.includes('frobnicator')),
      );
    const countBefore = gapOf(body)?.count ?? 0;
    const down = await feedback(user, answer.conversationId, answer.seq, {
      rating: 'down',
      reason: 'irrelevant_tickets',
    });
    expect(down.status).toBe(200);
    body = await insights.readInsights(scope, 30, new Date());
    expect(gapOf(body)?.byReason).toMatchObject({ weak_retrieval: 1, rated_down: 1 });
    expect(gapOf(body)?.count).toBe(countBefore);

    const removed = await callApi(
      chat.api,
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

describe('a gap example and a knowledge draft of the same inquiry', () => {
  it('show the same placeholders: the example is scrubbed with the draft’s named-people list', async () => {
    const store = createInMemoryInsightsStore();
    const recorder = createInsightsRecorder({
      store,
      estimateCostUsd: () => undefined,
      ownerHash: () => '0123456789abcdef',
      log: silentLog,
      gapScoreThreshold: 0.4,
      examples: true,
      now: () => new Date(),
    });
    const owner = { tenantId: 'local', userId: 'insights-named' };
    // The issue's inquiry: a self-introduction, then the name with an honorific.
    const inquiry =
      '経理部の山田太郎です（内線 1234）。3階のプリンターで印刷できません。山田太郎さんの席です。';
    await recorder.chatFinished(
      {
        owner,
        conversationId: '01J0000000000000000000000C',
        inquiryId: '01J0000000000000000000000I',
        modelId: 'offline',
        outcome: 'complete',
        durationMs: 1,
        ticketsRetrieved: 0,
        ticketsCited: 0,
        ticketsDropped: 0,
        restrictedFiltered: 0,
        unverifiedReferences: 0,
        unverifiedLinks: 0,
        answerSeq: 2,
      },
      { text: inquiry },
    );
    const body = await store.readInsights({ tenantId: 'local' }, 30, new Date());
    const example = body.gaps.flatMap((gap) => gap.examples)[0];
    expect(example, JSON.stringify(body.gaps)).toBeDefined();
    expect(example?.text).not.toContain('山田');
    expect(example?.text).toContain('[氏名]さん');
    // What a knowledge draft of the same inquiry shows for the same text (ticket-draft.ts).
    const draftScrub = await draftScrubOptions(
      owner,
      inquiryTranscript(
        [storedTurn(1, { inquiryId: '01J0000000000000000000000I', text: inquiry })],
        '01J0000000000000000000000I',
      ),
    );
    expect(example?.text).toBe(scrubPersonalData(inquiry, draftScrub).text);
  }, 60_000);
});

describe('an insights store that fails', () => {
  const failing: InsightsStore = {
    ...createInMemoryInsightsStore(),
    recordChat: () => Promise.reject(new Error('the insights table is unavailable')),
    recordFeedback: () => Promise.reject(new Error('the insights table is unavailable')),
    recordMailDraft: () => Promise.reject(new Error('the insights table is unavailable')),
  };
  let broken: InProcessApi;
  beforeAll(async () => {
    broken = await startInProcessApi({ overrides: { insights: failing } });
  });
  afterAll(() => broken?.stop());

  it("never fails the chat, the feedback or a draft's action", async () => {
    const response = await postChat(broken.api, { message: 'VPNにつながらない' }, { user: 'b' });
    const result = eventsNamed(response, 'result')[0] as { conversationId: string; seq: number };
    expect(result).toBeDefined();
    const rated = await callApi(
      broken.api,
      'POST',
      `/api/conversations/${result.conversationId}/turns/${result.seq}/feedback`,
      { rating: 'up' },
      { user: 'b' },
    );
    expect(rated.status).toBe(200);
    const copied = await callApi(
      broken.api,
      'POST',
      `/api/conversations/${result.conversationId}/turns/${result.seq}/mail-draft/actions`,
      { action: 'copy' },
      { user: 'b' },
    );
    expect(copied.status).toBe(200);
  });
});
