import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insightsSchema } from '../../functions/contract/insights.js';
import { DRAFT_TOOL_NAME } from '../../functions/contract/knowledge.js';
import type { InsightsStore } from '../../functions/insights/ports.js';
import { authorHash } from '../../functions/knowledge/ticket-document.js';
import type { RecordedConverseRequest } from '../../local/bedrock/recorded-requests.js';
import { callApi, eventsNamed, postChat } from '../support/chat-client.js';
import { createInMemoryConversationStore } from '../support/in-memory-conversation-store.js';
import { createInMemoryDailyBudget } from '../support/in-memory-daily-budget.js';
import { createInMemoryInsightsStore } from '../support/in-memory-insights-store.js';
import { createInMemoryKnowledgeDocuments } from '../support/in-memory-knowledge-documents.js';
import {
  createInProcessApi,
  type InProcessApi,
  startInProcessApi,
} from '../support/in-process-api.js';

/**
 * A service-desk lead drafts and publishes knowledge from a solved gap example of the insights
 * page (issue #28, ADR 0022), through the API in process (ADR 0016): the function's own wiring,
 * the in-memory conversation, insights and budget stores, the local Bedrock endpoint's offline
 * responder, and documents kept in a map. What the model is sent is read from the endpoint's
 * recorded requests; who paid, from the budget's counters.
 */

const LEAD = 'lead-sato';
const STAFF = 'staff-tanaka';
const DAILY_LIMIT = 5_000_000;
const budget = createInMemoryDailyBudget();
const insights = createInMemoryInsightsStore();
const { documents, written } = createInMemoryKnowledgeDocuments();
let nextIssueId = 900_500;

let chat: InProcessApi;
beforeAll(async () => {
  chat = await startInProcessApi({
    // Every retrieval counts as weak, so every inquiry is a gap with its example.
    functionEnvironment: {
      INSIGHTS_GAP_SCORE: '1',
      SERVICE_DESK_LEADS: LEAD,
      DAILY_TOKEN_BUDGET: String(DAILY_LIMIT),
    },
    overrides: {
      budget: budget.budget,
      insights,
      documents,
      issueNumbers: { next: async () => String(++nextIssueId) },
    },
  });
});
afterAll(() => chat?.stop());

/** A well-formed conversation id (a ULID) that no conversation has. */
const NO_CONVERSATION = '01J'.padEnd(26, 'Z');
const today = () => new Date().toISOString().slice(0, 10);
const errorOf = (json: unknown) =>
  (json as { error?: { code?: string; field?: string; issueId?: string } }).error;
const draftPath = (exampleId: string) => `/api/insights/gap-examples/${exampleId}/knowledge-draft`;
const publishPath = (exampleId: string) => `/api/insights/gap-examples/${exampleId}/knowledge`;

async function ask(user: string, body: Record<string, unknown>) {
  const response = await postChat(chat.api, body, { user });
  const meta = eventsNamed(response, 'meta')[0] as { conversationId: string; inquiryId: string };
  const result = eventsNamed(response, 'result')[0] as {
    seq: number;
    response_type: string;
    results?: { issue_id: string }[];
  };
  return { ...meta, result, cited: (result?.results ?? []).map((card) => card.issue_id) };
}

async function markSolved(
  user: string,
  answer: { conversationId: string; result: { seq: number } },
  helpfulTicketIds: string[],
) {
  const response = await callApi(
    chat.api,
    'POST',
    `/api/conversations/${answer.conversationId}/turns/${answer.result.seq}/feedback`,
    { rating: 'up', ...(helpfulTicketIds.length ? { helpfulTicketIds } : {}) },
    { user },
  );
  expect(response.status).toBe(200);
}

/** The lead's page, and the one gap that offers a draft. */
async function draftableGap() {
  const response = await callApi(chat.api, 'GET', '/api/insights', undefined, { user: LEAD });
  expect(response.status).toBe(200);
  const body = insightsSchema.parse(response.json);
  return { response, gaps: body.gaps.filter((gap) => gap.draftFrom !== undefined) };
}

/** A call with the model requests it caused (only those since it began). */
async function withModelRequests(call: () => ReturnType<typeof chat.api.call>) {
  const before = chat.bedrock.converseRequests.length;
  const response = await call();
  return { response, requests: chat.bedrock.converseRequests.slice(before) };
}

const ticket = {
  subject: 'Windows 11 laptops cannot reach the VPN from home',
  category: 'VPN',
  inquiry: 'A Windows 11 laptop cannot connect to the company VPN from home.',
  resolution: ['Updated the VPN client.', 'Re-imported the VPN profile.'],
  restricted: false,
};

describe('a knowledge draft from a gap example', () => {
  // One staff member's conversation with two inquiries, and a second conversation: the draft of
  // the VPN inquiry may read none of the others.
  let elsewhere: Awaited<ReturnType<typeof ask>>;
  let earlier: Awaited<ReturnType<typeof ask>>;
  let solved: Awaited<ReturnType<typeof ask>>;
  let exampleId: string;

  beforeAll(async () => {
    elsewhere = await ask(STAFF, { message: 'Outlookの予定表が同期されない (Quokka社の件)' });
    earlier = await ask(STAFF, {
      message: 'プリンターで名札を印刷すると白紙で出てきます ZEBRA-LABEL',
    });
    solved = await ask(STAFF, {
      conversationId: earlier.conversationId,
      inquiry: 'new',
      message: 'Windows 11 のノートPCで自宅からVPNにつながらない',
    });
    expect(solved.conversationId).toBe(earlier.conversationId);
    expect(solved.result.response_type).toBe('results');
    expect(solved.cited.length).toBeGreaterThan(0);
  });

  it('is offered for the solved example only, by an id that names neither the owner nor the inquiry', async () => {
    expect((await draftableGap()).gaps).toEqual([]);
    await markSolved(STAFF, solved, [solved.cited[0] as string]);
    const { response, gaps } = await draftableGap();
    expect(gaps).toHaveLength(1);
    const [gap] = gaps;
    expect(gap?.examples.map((example) => example.text)).toContain(
      'Windows 11 のノートPCで自宅からVPNにつながらない',
    );
    exampleId = gap?.draftFrom?.exampleId ?? '';
    // Opaque: not the conversation's id (nor the creation time its ULID carries).
    expect(exampleId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(response.text).not.toContain(solved.conversationId);
    expect(response.text).not.toContain(STAFF);
    expect(response.text).not.toContain(solved.inquiryId);
  });

  it('streams the lead the staff route’s draft of that inquiry alone, paid from the lead’s budget', async () => {
    const lead = { tenantId: 'local', userId: LEAD };
    const staff = { tenantId: 'local', userId: STAFF };
    const leadBefore = budget.committed(lead, today());
    const staffBefore = budget.committed(staff, today());
    const { response, requests } = await withModelRequests(() =>
      callApi(chat.api, 'POST', draftPath(exampleId), {}, { user: LEAD }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(response.events.slice(0, 2).map((event) => event.event)).toEqual(['meta', 'progress']);
    expect(eventsNamed(response, 'meta')[0]).toMatchObject({
      conversationId: solved.conversationId,
      inquiryId: solved.inquiryId,
    });
    const [draft] = eventsNamed(response, 'draft');
    expect(response.events.at(-1)?.event).toBe('draft');
    expect(draft).toMatchObject({ complete: true });
    expect(eventsNamed(response, 'draft_step').map((step) => step.text)).toEqual(draft?.resolution);
    expect(String(draft?.inquiry)).toContain('VPN');

    // One model request: the draft tool, one user message holding this inquiry alone.
    expect(requests).toHaveLength(1);
    const [request] = requests as [RecordedConverseRequest];
    expect(request.body.toolConfig?.toolChoice?.tool?.name).toBe(DRAFT_TOOL_NAME);
    expect(request.body.messages).toHaveLength(1);
    const sent = JSON.stringify(request.body);
    expect(sent).toContain('Windows 11 のノートPCで自宅からVPNにつながらない');
    for (const foreign of ['ZEBRA-LABEL', '名札', 'Quokka', 'Outlook', earlier.inquiryId]) {
      expect(sent, `${foreign} leaked into the draft request`).not.toContain(foreign);
    }
    expect(elsewhere.conversationId).not.toBe(solved.conversationId);

    // The lead's reservation, settled; the asker's day is untouched.
    expect(budget.committed(lead, today())).toBeGreaterThan(leadBefore);
    expect(budget.committed(staff, today())).toBe(staffBefore);
  });

  it('refuses staff who are not leads with 403 before any lookup or model call, as GET /api/insights', async () => {
    const calls = chat.bedrock.converseRequests.length;
    for (const path of [draftPath(exampleId), publishPath(exampleId)]) {
      const body = path.endsWith('draft') ? {} : ticket;
      const refused = await callApi(chat.api, 'POST', path, body, { user: STAFF });
      expect(refused.status, path).toBe(403);
      expect(errorOf(refused.json)?.code).toBe('not_a_service_desk_lead');
    }
    const insightsRefusal = await callApi(chat.api, 'GET', '/api/insights', undefined, {
      user: STAFF,
    });
    expect(insightsRefusal.json).toEqual(
      (await callApi(chat.api, 'POST', draftPath(exampleId), {}, { user: STAFF })).json,
    );
    expect(chat.bedrock.converseRequests.length).toBe(calls);
  });

  it('answers 404 for an example that does not exist, is not a gap example or is no longer solved', async () => {
    const calls = chat.bedrock.converseRequests.length;
    const notFound = async (id: string) => {
      const response = await callApi(chat.api, 'POST', draftPath(id), {}, { user: LEAD });
      return [response.status, errorOf(response.json)?.code];
    };
    // Well-formed ids naming no example.
    expect(await notFound('A'.repeat(22))).toEqual([404, 'not_found']);
    expect(
      await notFound(`${exampleId.slice(0, -1)}${exampleId.endsWith('A') ? 'B' : 'A'}`),
    ).toEqual([404, 'not_found']);
    // The conversation and answer no longer name an example, in any form.
    expect(await notFound(`${solved.conversationId}-${solved.result.seq}`)).toEqual([
      404,
      'not_found',
    ]);
    expect(await notFound(`${solved.conversationId}%232`)).toEqual([404, 'not_found']);
    expect(await notFound(`${NO_CONVERSATION}-${solved.result.seq}`)).toEqual([404, 'not_found']);
    expect(await notFound('x-2')).toEqual([404, 'not_found']);
    // The gap example whose inquiry nobody marked as solved is offered no id at all.
    const offered = (await draftableGap()).gaps.map((gap) => gap.draftFrom?.exampleId);
    expect(offered).toEqual([exampleId]);
    expect(earlier.result.seq).toBeGreaterThan(0);
    // Taken back by a later verdict: no longer solved. Marked again: offered again.
    await markSolved(STAFF, solved, []);
    expect(await notFound(exampleId)).toEqual([404, 'not_found']);
    expect((await draftableGap()).gaps).toEqual([]);
    await markSolved(STAFF, solved, [solved.cited[0] as string]);
    expect((await draftableGap()).gaps).toHaveLength(1);
    expect(chat.bedrock.converseRequests.length).toBe(calls);
  });

  it('publishes the edited draft with the staff route’s checks, on the asker’s conversation, with the lead as author', async () => {
    const withIds = await callApi(
      chat.api,
      'POST',
      publishPath(exampleId),
      { ...ticket, conversationId: solved.conversationId, inquiryId: solved.inquiryId },
      { user: LEAD },
    );
    // The example names the inquiry; a body naming one is refused, not obeyed.
    expect(withIds.status).toBe(400);
    const badCategory = await callApi(
      chat.api,
      'POST',
      publishPath(exampleId),
      { ...ticket, resolution: [] },
      { user: LEAD },
    );
    expect(badCategory.status).toBe(400);
    expect(errorOf(badCategory.json)?.field).toBe('resolution');
    expect(written.size).toBe(0);

    const published = await callApi(
      chat.api,
      'POST',
      publishPath(exampleId),
      { ...ticket, inquiry: `${ticket.inquiry} Reported by ${STAFF} to ${LEAD}.` },
      { user: LEAD },
    );
    expect(published.status).toBe(201);
    const { issueId, ingestion, personalDataRemoved } = published.json as {
      issueId: string;
      ingestion: string;
      personalDataRemoved: Record<string, number>;
    };
    expect(ingestion).toBe('started');
    // The asker and the lead, typed back into the inquiry, taken out again.
    expect(personalDataRemoved.name).toBe(2);
    const sidecar = JSON.parse(written.get(`${issueId}.md.metadata.json`) ?? '{}');
    expect(sidecar.metadataAttributes).toMatchObject({
      issue_id: issueId,
      source_conversation_id: solved.conversationId,
      source_inquiry_id: solved.inquiryId,
      author_hash: authorHash({ tenantId: 'local', userId: LEAD }),
    });
    // Both people are scrubbed from what is published, as at the staff route.
    const everything = [...written.values()].join('\n');
    expect(everything).not.toContain(STAFF);
    expect(everything).not.toContain(LEAD);

    // Recorded on the asker's conversation: staff see "published as #N" under their inquiry.
    const detail = await callApi(
      chat.api,
      'GET',
      `/api/conversations/${solved.conversationId}`,
      undefined,
      { user: STAFF },
    );
    expect((detail.json as { knowledge?: unknown }).knowledge).toEqual([
      {
        inquiryId: solved.inquiryId,
        issueId,
        subject: ticket.subject,
        restricted: false,
        publishedAt: expect.any(String),
      },
    ]);

    // Once published, neither a second publish nor a draft: 409 naming the ticket.
    for (const [path, body] of [
      [publishPath(exampleId), ticket],
      [draftPath(exampleId), {}],
    ] as const) {
      const again = await callApi(chat.api, 'POST', path, body, { user: LEAD });
      expect(again.status, path).toBe(409);
      expect(errorOf(again.json)).toMatchObject({ code: 'already_published', issueId });
    }
  });

  it('is gone with the conversation: deleted, its example is no longer found', async () => {
    const other = await ask(STAFF, { message: 'Wi-Fiが頻繁に切れる、会議室だけ' });
    const offeredBefore = (await draftableGap()).gaps.map((gap) => gap.draftFrom?.exampleId);
    await markSolved(STAFF, other, other.cited.slice(0, 1));
    const offered = (await draftableGap()).gaps.map((gap) => gap.draftFrom?.exampleId);
    // The id the page offers for the newly solved example.
    const otherId = offered.find((id) => !offeredBefore.includes(id)) ?? '';
    expect(otherId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const removed = await callApi(
      chat.api,
      'DELETE',
      `/api/conversations/${other.conversationId}`,
      undefined,
      { user: STAFF },
    );
    expect(removed.status).toBe(204);
    const response = await callApi(chat.api, 'POST', draftPath(otherId), {}, { user: LEAD });
    expect(response.status).toBe(404);
    expect((await draftableGap()).gaps.map((gap) => gap.draftFrom?.exampleId)).not.toContain(
      otherId,
    );
  });
});

describe('a lead who is not a knowledge editor', () => {
  it('is refused the draft and the publish with 403 not_a_knowledge_editor, as staff are', async () => {
    const store: InsightsStore = createInMemoryInsightsStore();
    const api = createInProcessApi(
      {
        MODEL_ID: 'unused',
        BEDROCK_RUNTIME_ENDPOINT: 'http://127.0.0.1:9',
        BEDROCK_AGENT_RUNTIME_ENDPOINT: 'http://127.0.0.1:9',
        AWS_REGION: 'local',
        LOG_LEVEL: 'SILENT',
        SERVICE_DESK_LEADS: LEAD,
        KNOWLEDGE_EDITORS: 'someone-else',
      },
      { store: createInMemoryConversationStore(), insights: store, documents },
    );
    const id = 'A'.repeat(22);
    for (const [path, body] of [
      [draftPath(id), {}],
      [publishPath(id), ticket],
    ] as const) {
      const refused = await callApi(api, 'POST', path, body, { user: LEAD });
      expect(refused.status, path).toBe(403);
      expect(errorOf(refused.json)?.code).toBe('not_a_knowledge_editor');
    }
  });
});
