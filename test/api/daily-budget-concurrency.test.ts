import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDailyBudget } from '../../functions/adapters/dynamodb/counters.js';
import { createDynamoDbConversationStore } from '../../functions/adapters/dynamodb/create-dynamodb-conversation-store.js';
import type { ApiRequest, HttpResponse } from '../../functions/api/http.js';
import type { RouteContext } from '../../functions/api/route-context.js';
import { createChatRoute } from '../../functions/chat/chat-route.js';
import { ChatModelError } from '../../functions/chat/errors.js';
import { chatAdmissionBound } from '../../functions/chat/model-request.js';
import {
  type ChatModel,
  type ChatModelRequest,
  type ConversationStore,
  defaultChatConfig,
  type ModelUsage,
  type Owner,
} from '../../functions/chat/ports.js';
import { createKnowledgeRoutes } from '../../functions/knowledge/knowledge-routes.js';
import type { DailyBudget } from '../../functions/model-call/daily-budget.js';
import { requestBound, tokensAtLeast } from '../../functions/model-call/daily-budget.js';
import { fakeRetriever, printer, results, vpn } from '../support/chat-core-harness.js';
import { readCommittedTokens } from '../support/daily-budget-counter.js';
import { createTestTables, type TestTables } from '../support/dynamodb-test-tables.js';
import { silentLog } from '../support/silent-log.js';

// Issue #24: the daily budget must hold under concurrency. Twenty requests of one user at once,
// in process through the routes, with the real DynamoDB store and budget on DynamoDB Local —
// the concurrency lives in the conditional write. The model answers only once every request was
// either refused or called it, so all twenty are in flight together, and it reports its usage.
// No reservation moves before every one was decided (`gatedBudget`): an admitted chat resizes its
// reservation down to its request's bound before it calls the model, and a reservation still
// backing off from a transaction conflict would find that room — a legitimate admission, but
// not the one this test counts (the CI run of 2026-12-01 admitted five where three fit).

const CONCURRENT = 20;
/** What the scripted model reports for every call. */
const usage: ModelUsage = { inputTokens: 700, outputTokens: 300 };
const tokensPerCall = usage.inputTokens + usage.outputTokens;

let t: TestTables;
let documents: DynamoDBDocumentClient;
let store: ConversationStore;
let budget: DailyBudget;
beforeAll(async () => {
  t = await createTestTables('budget-race');
  documents = DynamoDBDocumentClient.from(t.client, {
    marshallOptions: { removeUndefinedValues: true },
  });
  store = createDynamoDbConversationStore({
    client: documents,
    tables: t.tables,
    retentionDays: 30,
    cacheMaxBytes: 1024 * 1024,
    now: () => new Date(),
  });
  budget = createDailyBudget({ documents, tables: t.tables });
});
afterAll(() => t.dispose());

/**
 * A model that writes `output` as its tool input and reports `usage`, but only once `expected`
 * requests were decided: refused (`decide()`) or calling it.
 */
function gatedModel(output: object, expected: number) {
  let decided = 0;
  let calls = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const decide = () => {
    decided += 1;
    if (decided === expected) open();
  };
  const model: ChatModel = {
    async *stream() {
      calls += 1;
      decide();
      await opened;
      yield { type: 'tool_input', fragment: JSON.stringify(output) };
      yield { type: 'stop', reason: 'tool_use' };
      yield { type: 'usage', ...usage };
    },
  };
  return { model, decide, calls: () => calls };
}

/**
 * `inner`, with every adjustment (a resize, a settlement) held until `expected` reservations were
 * decided, admitted or refused: so the number admitted is what the limit leaves room for at
 * once, whatever order the conditional writes and their conflict retries land in.
 */
function gatedBudget(inner: DailyBudget, expected: number): DailyBudget {
  let decided = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    async reserve(owner, day, tokens, limit) {
      try {
        return await inner.reserve(owner, day, tokens, limit);
      } finally {
        decided += 1;
        if (decided === expected) open();
      }
    },
    async adjust(owner, day, tokens) {
      await opened;
      await inner.adjust(owner, day, tokens);
    },
  };
}

const apiRequest = (owner: Owner, path: string, body: unknown): ApiRequest => ({
  method: 'POST',
  path,
  headers: { 'content-type': 'application/json' },
  query: {},
  rawBody: JSON.stringify(body),
  bodyBytes: Buffer.from(JSON.stringify(body)),
  owner,
  canPublishKnowledge: true,
  canViewInsights: false,
  remainingTimeMs: () => 600_000,
});

/** Sends all requests at once; each ends answered (the SSE text) or refused (the error). */
async function sendAtOnce(
  send: () => Promise<HttpResponse>,
  refused: () => void,
): Promise<{ answered: string[]; errors: { code?: string; message: string }[] }> {
  const settled = await Promise.all(
    Array.from({ length: CONCURRENT }, async () => {
      try {
        const response = await send();
        return { text: await new Response(response.body as ReadableStream).text() };
      } catch (error) {
        refused();
        return { error: error as { code?: string; message: string } };
      }
    }),
  );
  return {
    answered: settled.flatMap((entry) => (entry.text === undefined ? [] : [entry.text])),
    errors: settled.flatMap((entry) => (entry.error === undefined ? [] : [entry.error])),
  };
}

const committedTokens = (owner: Owner) =>
  readCommittedTokens(documents, t.tables.turns, owner, new Date().toISOString().slice(0, 10));

const chatConfig = (dailyTokenBudget: number) => ({
  ...defaultChatConfig,
  modelId: 'test.model',
  numberOfResults: 8,
  queryExpansion: false,
  dailyTokenBudget,
});

/** The route context `createApi` builds, with this file's budget. */
function routeContext(dailyTokenBudget: number, dailyBudget: DailyBudget): RouteContext {
  return {
    log: silentLog,
    now: () => new Date(),
    budget: dailyBudget,
    config: { dailyTokenBudget, modelId: 'test.model', remainingTimeReserveMs: 20_000 },
    stream: { heartbeatMs: 60_000 },
  };
}

function chatRoute(model: ChatModel, dailyTokenBudget: number, chatBudget = budget) {
  return createChatRoute(routeContext(dailyTokenBudget, chatBudget), {
    store,
    retriever: fakeRetriever([printer, vpn]).retriever,
    model,
    config: chatConfig(dailyTokenBudget),
  });
}

const message = 'プリンターで印刷できない';
const answer = results('プリンタードライバーを再インストールしてください', ['1001']);

/** At most one call over the limit: the calls that fit in it, and one more. */
const mostAnswersWithin = (limit: number) => Math.floor(limit / tokensPerCall) + 1;

function expectRefusedAsOverBudget(errors: readonly { code?: string; message: string }[]) {
  for (const error of errors) {
    expect(error.code).toBe('daily_budget_exceeded');
    expect(error.message).toContain('midnight UTC');
  }
}

describe('the daily budget under twenty concurrent chats of one user', () => {
  it.each([
    { limit: 1, label: 'a budget of one token', admitted: 1 },
    // Room for three reservations, however small the answers: three chats find it at once.
    {
      limit: 3 * chatAdmissionBound(message, chatConfig(0)),
      label: 'a budget of three reservations',
      admitted: 3,
    },
  ])(
    'answers at most one chat over $label and refuses the rest with 429, writing nothing for them',
    async ({ limit, admitted }) => {
      const owner = { tenantId: 'acme', userId: `chatter-${limit}` };
      const gate = gatedModel(answer, CONCURRENT);
      const route = chatRoute(gate.model, limit, gatedBudget(budget, CONCURRENT));
      const { answered, errors } = await sendAtOnce(
        () => route(apiRequest(owner, '/api/chat', { message })),
        gate.decide,
      );

      expect(answered.length).toBeLessThanOrEqual(mostAnswersWithin(limit));
      // Exactly the chats whose reservation found room (none moves before all are decided).
      expect(answered).toHaveLength(admitted);
      for (const text of answered) expect(text).toContain('event: result');
      expect(errors).toHaveLength(CONCURRENT - answered.length);
      expectRefusedAsOverBudget(errors);
      expect(gate.calls()).toBe(answered.length);
      // A refused chat wrote no conversation; every answered one is there.
      const { items: conversations } = await store.listConversations(owner, { limit: 50 });
      expect(conversations).toHaveLength(answered.length);
      // Every reservation settled to what its answer used.
      expect(await committedTokens(owner)).toBe(answered.length * tokensPerCall);
    },
  );

  it('gives a reservation back when the chat never calls the model (a replayed retry)', async () => {
    const owner = { tenantId: 'acme', userId: 'retrier' };
    const gate = gatedModel(answer, 1);
    const route = chatRoute(gate.model, 1_000_000);
    const body = { message: 'VPNに接続できない', clientMessageId: 'retried-message' };
    const first = await route(apiRequest(owner, '/api/chat', body));
    await new Response(first.body as ReadableStream).text();
    const replayed = await route(apiRequest(owner, '/api/chat', body));
    expect(await new Response(replayed.body as ReadableStream).text()).toContain('event: result');
    expect(gate.calls()).toBe(1);
    expect(await committedTokens(owner)).toBe(tokensPerCall);
  });
});

/** A solved inquiry of `owner` to draft from, answered without a budget. */
async function solvedInquiry(owner: Owner): Promise<{ conversationId: string; inquiryId: string }> {
  const solved = await chatRoute(
    gatedModel(answer, 1).model,
    0,
  )(apiRequest(owner, '/api/chat', { message: 'プリンターで印刷できない' }));
  const solvedText = await new Response(solved.body as ReadableStream).text();
  return JSON.parse(/event: meta\ndata: (.*)/.exec(solvedText)?.[1] ?? '{}');
}

function knowledgeRoutes(model: ChatModel, dailyTokenBudget: number, draftBudget = budget) {
  return createKnowledgeRoutes(routeContext(dailyTokenBudget, draftBudget), {
    store,
    retriever: fakeRetriever([printer, vpn]).retriever,
    model,
    documents: {
      write: async () => undefined,
      remove: async () => undefined,
      startSync: async () => 'started',
      uploadedCategories: async () => [],
    },
    issueNumbers: { next: async () => '9001' },
    syncBacklog: {
      markPending: async () => undefined,
      read: async () => undefined,
      clear: async () => undefined,
    },
    config: {},
  });
}

const draftPath = (meta: { conversationId: string; inquiryId: string }) =>
  `/api/conversations/${meta.conversationId}/inquiries/${meta.inquiryId}/knowledge-draft`;

describe('the daily budget under twenty concurrent knowledge drafts of one user', () => {
  it('drafts at most one over the budget and refuses the rest with 429', async () => {
    const owner = { tenantId: 'acme', userId: 'drafter' };
    const meta = await solvedInquiry(owner);

    const limit = 1;
    const gate = gatedModel(
      {
        subject: 'プリンターで印刷できない',
        category: 'Printer',
        inquiry: 'プリンターで印刷できない。',
        resolution: ['ドライバーを再インストールする'],
        restricted: false,
      },
      CONCURRENT,
    );
    const routes = knowledgeRoutes(gate.model, limit, gatedBudget(budget, CONCURRENT));
    const { answered, errors } = await sendAtOnce(
      () =>
        routes.draft(apiRequest(owner, draftPath(meta), {}), meta.conversationId, meta.inquiryId),
      gate.decide,
    );

    expect(answered.length).toBeLessThanOrEqual(mostAnswersWithin(limit));
    expect(answered).toHaveLength(1);
    for (const text of answered) expect(text).toContain('event: draft\n');
    expect(errors).toHaveLength(CONCURRENT - answered.length);
    expectRefusedAsOverBudget(errors);
    expect(gate.calls()).toBe(answered.length);
    expect(await committedTokens(owner)).toBe(answered.length * tokensPerCall);
  });

  it.each([
    { code: 'model_stream_failed', charged: true },
    { code: 'model_throttled', charged: false },
  ] as const)(
    'charges a draft whose model failed before anything arrived ($code) what it surely read',
    async ({ code, charged }) => {
      const owner = { tenantId: 'acme', userId: `broken-drafter-${code}` };
      const meta = await solvedInquiry(owner);
      const requests: ChatModelRequest[] = [];
      const failingModel: ChatModel = {
        // biome-ignore lint/correctness/useYield: the model fails before its first event
        async *stream(request) {
          requests.push(request);
          throw new ChatModelError(code, true);
        },
      };
      const response = await knowledgeRoutes(failingModel, 1_000_000).draft(
        apiRequest(owner, draftPath(meta), {}),
        meta.conversationId,
        meta.inquiryId,
      );

      expect(await new Response(response.body as ReadableStream).text()).toContain(
        `"code":"${code}"`,
      );
      const [request] = requests as [ChatModelRequest];
      const committed = await committedTokens(owner);
      // Throttling comes before the model reads anything; a broken stream came after it read.
      if (!charged) expect(committed).toBe(0);
      else {
        expect(committed).toBeGreaterThan(tokensAtLeast(request.system));
        expect(committed).toBeLessThan(requestBound(request));
      }
    },
  );
});
