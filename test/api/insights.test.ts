import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../functions/api/http.js';
import type { Retriever } from '../../functions/chat/ports.js';
import { ALL_DESK } from '../../functions/contract/desks.js';
import { type Insights, insightsSchema } from '../../functions/contract/insights.js';
import { callerSchema } from '../../functions/contract/knowledge.js';
import { createInsightsRoutes } from '../../functions/insights/insights-routes.js';
import type { ChatInsight, InsightsStore, TicketCatalog } from '../../functions/insights/ports.js';
import { callApi, eventsNamed, fetchConversation, postChat } from '../support/chat-client.js';
import { createInMemoryConversationStore } from '../support/in-memory-conversation-store.js';
import { createInMemoryInsightsStore } from '../support/in-memory-insights-store.js';
import {
  createInProcessApi,
  type InProcessApiOnLocalServices,
  startInProcessApi,
} from '../support/in-process-api.js';
import { silentLog } from '../support/silent-log.js';

/**
 * `GET /api/insights` in process (ADR 0016): who may read it, which windows, how it is cached,
 * that it is the store's read for the caller's tenant passed through the contract, and — on the
 * local stack's DynamoDB Local and Bedrock endpoint — that chats and feedback sent through the API
 * fill it. The aggregates' own rules are test/insights/ and the store conformance suite.
 */

const now = new Date('2026-12-02T09:30:00Z');
/** The tickets of data/tickets, which the local stack serves. */
const SAMPLE_TICKETS = 171;
const tenantId = 'acme';

/**
 * The Knowledge Base as the page asks it which tickets the lead may retrieve (ADR 0029): every
 * ticket asked for is there, of desk `all`, as the sample tickets are.
 */
const everyTicketOfAllDesks: Retriever = {
  search: async () => [],
  fetchByIssueIds: async (issueIds) =>
    issueIds.map((issueId) => ({
      issueId,
      subject: issueId,
      restricted: false,
      desk: ALL_DESK,
      text: issueId,
      score: 1,
    })),
};

function apiWith(
  settings: Record<string, string> = {},
  insights: Pick<InsightsStore, 'readInsights'> = createInMemoryInsightsStore(),
  catalog?: TicketCatalog,
) {
  return createInProcessApi(
    {
      TENANT_ID: tenantId,
      MODEL_ID: 'unused',
      BEDROCK_RUNTIME_ENDPOINT: 'http://127.0.0.1:9',
      BEDROCK_AGENT_RUNTIME_ENDPOINT: 'http://127.0.0.1:9',
      AWS_REGION: 'local',
      LOG_LEVEL: 'SILENT',
      ...settings,
    },
    {
      store: createInMemoryConversationStore(),
      retriever: everyTicketOfAllDesks,
      insights: insights as InsightsStore,
      ...(catalog ? { catalog } : {}),
      now: () => now,
    },
  );
}

const errorOf = (json: unknown) =>
  (json as { error?: { code?: string; field?: string; message?: string } }).error;

/** A chat of `day` whose retrieval found nothing: a knowledge gap with its example. */
const gapChat = (conversationId: string, text: string, ownerHash: string): ChatInsight => ({
  day: '2026-12-01',
  conversationId,
  answerSeq: 2,
  outcome: 'complete',
  timeToFirstTokenMs: 420,
  inputTokens: 1200,
  outputTokens: 300,
  estimatedCostUsd: 0.0081,
  citedIssueIds: [],
  retrievedIssueIds: [],
  gap: {
    topicKey: 'uncategorized|複合機',
    category: 'uncategorized',
    terms: ['複合機'],
    reason: 'no_ticket_cited',
    example: { text, ownerHash },
  },
});

describe('GET /api/insights', () => {
  it('answers a lead with the window of figures, never stored by a cache', async () => {
    const api = apiWith();
    const response = await callApi(api, 'GET', '/api/insights', undefined, { user: 'lead' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('private, no-store');
    const body = insightsSchema.parse(response.json);
    expect(body.days).toBe(30);
    expect(body.generatedAt).toBe(now.toISOString());
    expect(body.activity.perDay).toHaveLength(30);
    expect(body.activity.perDay.at(-1)?.day).toBe('2026-12-02');
    expect(body.examplesKept).toBe(true);

    const ninety = await callApi(api, 'GET', '/api/insights?days=90', undefined, { user: 'lead' });
    expect(ninety.status).toBe(200);
    expect(insightsSchema.parse(ninety.json).activity.perDay).toHaveLength(90);
  });

  it("reads the caller's tenant's aggregates: a recorded gap arrives with its example", async () => {
    const insights = createInMemoryInsightsStore();
    await insights.recordChat(
      { tenantId },
      gapChat('01JCONVERSATION0000000001', '複合機でスキャンした PDF が届かない', 'a1b2c3d4e5f6'),
    );
    await insights.recordChat(
      { tenantId: 'another-tenant' },
      gapChat('01JCONVERSATION0000000002', 'よそのテナントの問い合わせ', 'ffff0000'),
    );
    const response = await callApi(apiWith({}, insights), 'GET', '/api/insights', undefined, {
      user: 'lead',
    });
    const body = insightsSchema.parse(response.json);
    expect(body.activity.totals).toMatchObject({ chats: 1, inputTokens: 1200, outputTokens: 300 });
    expect(body.gaps).toHaveLength(1);
    expect(body.gaps[0]).toMatchObject({ category: 'uncategorized', terms: ['複合機'], count: 1 });
    expect(body.gaps[0]?.examples).toEqual([
      {
        text: '複合機でスキャンした PDF が届かない',
        day: '2026-12-01',
        ownerHash: 'a1b2c3d4e5f6',
        solved: false,
      },
    ]);
    expect(response.text).not.toContain('よそのテナント');
  });

  it('says when the deployment keeps no gap examples (INSIGHTS_EXAMPLES=false)', async () => {
    const response = await callApi(
      apiWith({ INSIGHTS_EXAMPLES: 'false' }),
      'GET',
      '/api/insights',
      undefined,
      { user: 'lead' },
    );
    expect(insightsSchema.parse(response.json).examplesKept).toBe(false);
  });

  it('counts the tickets never retrieved out of the catalog the deployment lists', async () => {
    const insights = createInMemoryInsightsStore();
    await insights.recordChat(
      { tenantId },
      { ...gapChat('01JCONVERSATION0000000003', 'VPN', 'a1'), retrievedIssueIds: ['1002'] },
    );
    let listings = 0;
    const catalog: TicketCatalog = {
      issueIds: async () => {
        listings += 1;
        return ['1003', '1002', '1001'];
      },
    };
    const response = await callApi(
      apiWith({}, insights, catalog),
      'GET',
      '/api/insights',
      undefined,
      {
        user: 'lead',
      },
    );
    expect(insightsSchema.parse(response.json).helped.neverRetrieved).toEqual({
      count: 2,
      total: 3,
      sample: ['1001', '1003'],
    });
    expect(listings).toBe(1);
  });

  it('adds the live-synced sources’ freshness, read at the request’s time, when the deployment has any', async () => {
    const reads: Date[] = [];
    const api = createInProcessApi(
      {
        TENANT_ID: tenantId,
        MODEL_ID: 'unused',
        BEDROCK_RUNTIME_ENDPOINT: 'http://127.0.0.1:9',
        BEDROCK_AGENT_RUNTIME_ENDPOINT: 'http://127.0.0.1:9',
        AWS_REGION: 'local',
        LOG_LEVEL: 'SILENT',
      },
      {
        store: createInMemoryConversationStore(),
        insights: createInMemoryInsightsStore(),
        knowledgeFreshness: {
          async read(at) {
            reads.push(at);
            return [
              {
                id: 'servicenow',
                system: 'servicenow',
                lastSuccessAt: '2026-12-02T09:15:00.000Z',
                lagMinutes: 15,
                maxLagMinutes: 60,
              },
            ];
          },
        },
        now: () => now,
      },
    );
    const response = await callApi(api, 'GET', '/api/insights', undefined, { user: 'lead' });
    expect(insightsSchema.parse(response.json).knowledgeFreshness).toEqual([
      {
        id: 'servicenow',
        system: 'servicenow',
        lastSuccessAt: '2026-12-02T09:15:00.000Z',
        lagMinutes: 15,
        maxLagMinutes: 60,
      },
    ]);
    expect(reads).toEqual([now]);
    // Without synced sources the body has no such field.
    const plain = await callApi(apiWith(), 'GET', '/api/insights', undefined, { user: 'lead' });
    expect(insightsSchema.parse(plain.json).knowledgeFreshness).toBeUndefined();
  });

  it('does not wait past its bound for a first listing, and finds it on the next read', async () => {
    const insights = createInMemoryInsightsStore();
    let finish!: (issueIds: readonly string[]) => void;
    const listing = new Promise<readonly string[]>((resolve) => {
      finish = resolve;
    });
    const read = createInsightsRoutes(
      { now: () => now, log: silentLog },
      {
        insights,
        tickets: everyTicketOfAllDesks,
        catalog: { issueIds: () => listing },
        catalogWaitMs: 20,
      },
    ).read;
    const lead = {
      method: 'GET',
      path: '/api/insights',
      headers: {},
      query: {},
      rawBody: '',
      bodyBytes: Buffer.alloc(0),
      owner: { tenantId, userId: 'lead' },
      desks: [ALL_DESK],
      displayName: 'lead',
      canPublishKnowledge: false,
      canViewInsights: true,
      remainingTimeMs: () => 60_000,
    } as ApiRequest;
    const early = JSON.parse((await read(lead)).body as string);
    expect(insightsSchema.parse(early).helped.neverRetrieved.total).toBeUndefined();
    finish(['1001', '1002']);
    const later = JSON.parse((await read(lead)).body as string);
    expect(insightsSchema.parse(later).helped.neverRetrieved).toMatchObject({ count: 2, total: 2 });
  });

  it('leaves the total absent where the deployment cannot list its tickets', async () => {
    const insights = createInMemoryInsightsStore();
    await insights.recordChat(
      { tenantId },
      { ...gapChat('01JCONVERSATION0000000004', 'VPN', 'a1'), retrievedIssueIds: ['1002'] },
    );
    const unlisted: TicketCatalog = { issueIds: async () => undefined };
    for (const api of [apiWith({}, insights), apiWith({}, insights, unlisted)]) {
      const response = await callApi(api, 'GET', '/api/insights', undefined, { user: 'lead' });
      expect(response.status).toBe(200);
      expect(insightsSchema.parse(response.json).helped.neverRetrieved).toEqual({
        count: 0,
        sample: [],
      });
    }
  });

  it('passes only what the contract declares: a key a store adds never reaches the page', async () => {
    const store = createInMemoryInsightsStore();
    await store.recordChat(
      { tenantId },
      gapChat('01JCONVERSATION0000000003', 'VPN が切れる', 'beefcafe'),
    );
    const leaky: Pick<InsightsStore, 'readInsights'> = {
      async readInsights(scope, days, at) {
        const body = await store.readInsights(scope, days, at);
        const [gap] = body.gaps;
        const withExtras = {
          ...body,
          internalNote: 'not for the page',
          gaps: [
            {
              ...gap,
              examples: gap?.examples.map((example) => ({ ...example, userId: 'tanaka.taro' })),
            },
          ],
        };
        return withExtras as Insights;
      },
    };
    const response = await callApi(apiWith({}, leaky), 'GET', '/api/insights', undefined, {
      user: 'lead',
    });
    expect(response.status).toBe(200);
    expect(response.text).toContain('VPN が切れる');
    expect(response.text).not.toContain('tanaka.taro');
    expect(response.text).not.toContain('internalNote');
  });

  it.each([
    ['7', '?days=7'],
    ['a word', '?days=month'],
    ['an empty value', '?days='],
    ['a fraction', '?days=30.5'],
  ])('refuses %s as the window with 400 naming days', async (_name, query) => {
    const response = await callApi(apiWith(), 'GET', `/api/insights${query}`, undefined, {
      user: 'lead',
    });
    expect(response.status).toBe(400);
    expect(errorOf(response.json)).toMatchObject({ code: 'bad_request', field: 'days' });
  });

  it('refuses POST with 405', async () => {
    const response = await callApi(apiWith(), 'POST', '/api/insights', {}, { user: 'lead' });
    expect(response.status).toBe(405);
  });
});

describe('service-desk leads', () => {
  const settings = { SERVICE_DESK_LEADS: 'lead-one, lead-two' };

  it('refuses staff who are not listed with 403, before looking at the window', async () => {
    const api = apiWith(settings);
    for (const path of ['/api/insights', '/api/insights?days=7']) {
      const response = await callApi(api, 'GET', path, undefined, { user: 'staff' });
      expect(response.status, path).toBe(403);
      expect(errorOf(response.json)?.code).toBe('not_a_service_desk_lead');
    }
    const lead = await callApi(api, 'GET', '/api/insights', undefined, { user: 'lead-two' });
    expect(lead.status).toBe(200);
  });

  it('tells the web app who is a lead in GET /api/me', async () => {
    const api = apiWith(settings);
    const staff = callerSchema.parse(
      (await callApi(api, 'GET', '/api/me', undefined, { user: 'staff' })).json,
    );
    const lead = callerSchema.parse(
      (await callApi(api, 'GET', '/api/me', undefined, { user: 'lead-one' })).json,
    );
    expect(staff.canViewInsights).toBe(false);
    expect(lead.canViewInsights).toBe(true);
  });

  it('makes every dev user a lead while SERVICE_DESK_LEADS is unset', async () => {
    const me = await callApi(apiWith(), 'GET', '/api/me', undefined, { user: 'anyone' });
    expect(callerSchema.parse(me.json).canViewInsights).toBe(true);
  });
});

describe('insights from real use, on the local stack (DynamoDB Local, local Bedrock)', () => {
  let stack: InProcessApiOnLocalServices;
  beforeAll(async () => {
    // Every retrieval counts as weak (best score under 1), so each inquiry is a gap with its
    // example whatever the local index scores: the test is about the path, not the threshold.
    stack = await startInProcessApi({
      store: 'dynamodb',
      functionEnvironment: { INSIGHTS_GAP_SCORE: '1' },
    });
  });
  afterAll(() => stack?.stop());

  it('fills the body from chats, a 👍 with the solution marked and a 👎 as irrelevant', async () => {
    const user = 'insights-staff';
    const solved = await answeredThroughApi(stack, user, 'プリンターの設置依頼をしたい');
    const issueId = solved.citedIssueIds[0] ?? '';
    expect(issueId).not.toBe('');
    const up = await callApi(
      stack.api,
      'POST',
      `/api/conversations/${solved.conversationId}/turns/${solved.seq}/feedback`,
      { rating: 'up', helpfulTicketIds: [issueId] },
      { user },
    );
    expect(up.status).toBe(200);
    const gap = await answeredThroughApi(stack, user, '会議室のプロジェクターが映らない');
    const down = await callApi(
      stack.api,
      'POST',
      `/api/conversations/${gap.conversationId}/turns/${gap.seq}/feedback`,
      { rating: 'down', reason: 'irrelevant_tickets' },
      { user },
    );
    expect(down.status).toBe(200);

    const response = await callApi(stack.api, 'GET', '/api/insights', undefined, {
      user: 'a-lead',
    });
    expect(response.status).toBe(200);
    const body = insightsSchema.parse(response.json);
    expect(body.activity.totals).toMatchObject({ chats: 2, answers: 2, ratedUp: 1, ratedDown: 1 });
    expect(body.activity.totals.inputTokens).toBeGreaterThan(0);
    expect(body.helped.mostSolved[0]).toMatchObject({ issueId, solved: 1 });
    const examples = body.gaps.flatMap((topic) => topic.examples.map((example) => example.text));
    expect(examples).toContain('会議室のプロジェクターが映らない');
    const ratedDown = body.gaps.reduce((sum, topic) => sum + (topic.byReason.rated_down ?? 0), 0);
    expect(ratedDown).toBe(1);
    // The asker is a hash, never the user id.
    expect(response.text).not.toContain(user);
    // The local endpoint lists its index (ListKnowledgeBaseDocuments through the real client):
    // the 171 sample tickets, of which two chats retrieved the cited one and a few others.
    const { neverRetrieved } = body.helped;
    expect(neverRetrieved.total).toBe(SAMPLE_TICKETS);
    expect(neverRetrieved.count).toBeLessThan(SAMPLE_TICKETS);
    expect(neverRetrieved.count).toBeGreaterThan(SAMPLE_TICKETS / 2);
    // The sample names only tickets the lead may retrieve (ADR 0029): the store's 20, less the
    // restricted ones among them, which nobody retrieves (1015 is the first of the corpus).
    expect(neverRetrieved.sample.length).toBeGreaterThan(15);
    expect(neverRetrieved.sample.length).toBeLessThan(20);
    expect(neverRetrieved.sample).not.toContain('1015');
    expect(neverRetrieved.sample).not.toContain(issueId);
  }, 120_000);
});

/** Posts a chat and returns the stored answer's conversation, seq and cited tickets. */
async function answeredThroughApi(
  stack: InProcessApiOnLocalServices,
  user: string,
  message: string,
) {
  const response = await postChat(stack.api, { message }, { user });
  const conversationId = eventsNamed(response, 'meta')[0]?.conversationId as string;
  const detail = await fetchConversation(stack.api, conversationId, user);
  const answer = detail.turns.find((turn) => turn.kind === 'answer');
  if (!answer) throw new Error(`no answer stored for "${message}"`);
  const cited =
    (answer.result as { results?: { issue_id: string }[] } | undefined)?.results?.map(
      (ticket) => ticket.issue_id,
    ) ?? [];
  return { conversationId, seq: answer.seq, citedIssueIds: cited };
}
