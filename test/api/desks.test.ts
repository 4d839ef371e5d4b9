import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BedrockAgentRuntimeClient } from '@aws-sdk/client-bedrock-agent-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRetrievalEvaluation, scoreOutcomes } from '../../eval/retrieval-evaluation.js';
import { createKnowledgeBaseRetriever } from '../../functions/adapters/bedrock/knowledge-base-retriever.js';
import type { ResolvedCaller } from '../../functions/api/resolve-owner.js';
import type { Retriever } from '../../functions/chat/ports.js';
import { ALL_DESK } from '../../functions/contract/desks.js';
import { insightsSchema } from '../../functions/contract/insights.js';
import { callerSchema } from '../../functions/contract/knowledge.js';
import { callApi, eventsNamed, postChat } from '../support/chat-client.js';
import { createInMemoryInsightsStore } from '../support/in-memory-insights-store.js';
import { createInMemoryKnowledgeDocuments } from '../support/in-memory-knowledge-documents.js';
import { type InProcessApi, startInProcessApi } from '../support/in-process-api.js';
import { scriptedAnswer } from '../support/scripted-answer.js';

/**
 * Desks (issue #49, ADR 0029): an HR staff member retrieves the HR desk's tickets and an IT staff
 * member never does, through every path that shows tickets — the chat's search, a ticket typed
 * by number, the answer's cards, a knowledge draft's cited tickets, the insights' ticket lists
 * and the eval — on the function's own wiring in process, with the local Bedrock endpoint
 * applying the Knowledge Base filter over a folder of three tickets. Who is who comes from a
 * resolver override: the desks a sign-in would grant.
 */

const HR_MARKER = 'MATERNITY-FORM-7731';
const IT_MARKER = 'DOCKING-STATION-4410';
const TICKETS = [
  { issueId: '2001', desk: 'hr', subject: 'Parental leave application', marker: HR_MARKER },
  { issueId: '2002', desk: 'it', subject: 'Laptop back from leave', marker: IT_MARKER },
  { issueId: '2003', desk: ALL_DESK, subject: 'Leave calendar in Outlook', marker: 'CAL-1' },
  // No chat asks for it: it stays among the tickets never retrieved.
  { issueId: '2004', desk: 'hr', subject: 'Payroll slip reissue', marker: 'PAYROLL-9' },
] as const;

const HR = 'hr-staff';
const IT = 'it-staff';
/** A staff member who moves from the HR desk to the IT desk during the test. */
const MOVER = 'mover';
/** Leads of a tenant of their own, whose insights hold only what a test recorded. */
const HR_LEAD = 'hr-lead';
const IT_LEAD = 'it-lead';
const LEADS_TENANT = 'leads';
const desksOf: Record<string, string[]> = {
  [HR]: [ALL_DESK, 'hr'],
  [IT]: [ALL_DESK, 'it'],
  [MOVER]: [ALL_DESK, 'hr'],
  [HR_LEAD]: [ALL_DESK, 'hr'],
  [IT_LEAD]: [ALL_DESK, 'it'],
};

const insights = createInMemoryInsightsStore();
const { documents, written } = createInMemoryKnowledgeDocuments();
let folder: string;
let chat: InProcessApi;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'desk-api-'));
  for (const ticket of TICKETS) {
    writeFileSync(
      join(folder, `${ticket.issueId}.md`),
      `# ${ticket.subject}\n\n## Inquiry\n\nAbout ${ticket.issueId === '2004' ? 'payroll' : 'leave'}.\n\n## Resolution\n\n1. Use ${ticket.marker}.\n`,
    );
    writeFileSync(
      join(folder, `${ticket.issueId}.md.metadata.json`),
      JSON.stringify({
        metadataAttributes: {
          issue_id: ticket.issueId,
          subject: ticket.subject,
          category: ticket.issueId === '2004' ? 'Payroll' : 'Leave',
          restricted: false,
          desk: ticket.desk,
        },
      }),
    );
  }
  const resolveOwner = async (headers: Readonly<Record<string, string | undefined>>) => {
    const userId = headers['x-dev-user'] ?? 'nobody';
    const caller: ResolvedCaller = {
      owner: { tenantId: userId.endsWith('-lead') ? LEADS_TENANT : 'local', userId },
      canPublishKnowledge: true,
      canViewInsights: true,
      roles: [],
      desks: desksOf[userId] ?? [ALL_DESK],
      displayName: userId,
    };
    return caller;
  };
  let nextIssueId = 900_700;
  chat = await startInProcessApi({
    bedrockOptions: { ticketsDir: folder },
    overrides: {
      resolveOwner,
      insights,
      documents,
      issueNumbers: { next: async () => String(++nextIssueId) },
      catalog: { issueIds: async () => TICKETS.map((ticket) => ticket.issueId) },
    },
  });
});
afterAll(async () => {
  await chat?.stop();
  rmSync(folder, { recursive: true, force: true });
});

/** The subject a card carries into the stored answer, and from there into a knowledge draft. */
const cardSubject = (issueId: string) => `CARD-SUBJECT-${issueId}`;
const card = (issueId: string) => ({
  issue_id: issueId,
  subject: cardSubject(issueId),
  summary: 'm',
  resolution: 'r',
});

/** Scripts the next answer: complete results citing `issueIds` (a solved inquiry to publish). */
const answerCiting = (...issueIds: string[]) =>
  chat.bedrock.enqueueScript(
    scriptedAnswer({
      response_type: 'results',
      general_advice: 'See the tickets.',
      results: issueIds.map(card),
    }),
  );

/** A chat, the tickets it showed (`kb_chunks`, `ticket`) and what the model was sent. */
async function ask(user: string, message: string, conversationId?: string) {
  const before = chat.bedrock.converseRequests.length;
  const response = await postChat(
    chat.api,
    { message, ...(conversationId ? { conversationId, inquiry: 'new' } : {}) },
    { user },
  );
  expect(response.status).toBe(200);
  const chunks = eventsNamed(response, 'kb_chunks')[0] as { chunks: { issue_id: string }[] };
  const meta = eventsNamed(response, 'meta')[0] as { conversationId: string; inquiryId: string };
  return {
    ...meta,
    retrieved: chunks.chunks.map((chunk) => chunk.issue_id).sort(),
    cards: eventsNamed(response, 'ticket').map((ticket) => ticket.issue_id),
    sent: JSON.stringify(chat.bedrock.converseRequests.slice(before)),
  };
}

describe('desks through the API (ADR 0029)', () => {
  it('lets HR staff retrieve the HR ticket, and IT staff never, by search', async () => {
    const hr = await ask(HR, 'leave');
    expect(hr.retrieved).toEqual(expect.arrayContaining(['2001', '2003']));
    expect(hr.sent).toContain(HR_MARKER);
    const it = await ask(IT, 'leave');
    expect(it.retrieved).toEqual(['2002', '2003']);
    expect(it.sent).not.toContain(HR_MARKER);
  });

  it('reveals nothing of an HR ticket typed by number to IT staff', async () => {
    const it = await ask(IT, 'What did ticket #2001 say?');
    expect(it.retrieved).not.toContain('2001');
    expect(it.sent).not.toContain(HR_MARKER);
    expect(it.sent).not.toContain('Parental leave application');
    const hr = await ask(HR, 'What did ticket #2001 say?');
    expect(hr.sent).toContain(HR_MARKER);
  });

  it('drops a card citing another desk’s ticket, as one citing a ticket never retrieved', async () => {
    chat.bedrock.enqueueScript(
      scriptedAnswer({
        response_type: 'results',
        general_advice: 'See the tickets.',
        results: [card('2001'), card('2003')],
      }),
    );
    expect((await ask(IT, 'leave')).cards).toEqual(['2003']);
    chat.bedrock.enqueueScript(
      scriptedAnswer({
        response_type: 'results',
        general_advice: 'See the tickets.',
        results: [card('2001'), card('2003')],
      }),
    );
    expect((await ask(HR, 'leave')).cards).toEqual(['2001', '2003']);
  });

  it('drafts knowledge without the tickets of a desk the editor no longer has', async () => {
    chat.bedrock.enqueueScript(
      scriptedAnswer({
        response_type: 'results',
        general_advice: 'Use the form.',
        results: [card('2001')],
      }),
    );
    const asked = await ask(MOVER, 'parental leave');
    expect(asked.cards).toEqual(['2001']);
    const draftPath = `/api/conversations/${asked.conversationId}/inquiries/${asked.inquiryId}/knowledge-draft`;
    const draftSent = async () => {
      const before = chat.bedrock.converseRequests.length;
      const response = await callApi(chat.api, 'POST', draftPath, {}, { user: MOVER });
      expect(response.status).toBe(200);
      return JSON.stringify(chat.bedrock.converseRequests.slice(before));
    };
    // As long as the mover is of the HR desk, the draft reads the ticket the answer cited.
    expect(await draftSent()).toContain(cardSubject('2001'));
    desksOf[MOVER] = [ALL_DESK, 'it'];
    try {
      expect(await draftSent()).not.toContain(cardSubject('2001'));
    } finally {
      desksOf[MOVER] = [ALL_DESK, 'hr'];
    }
  });

  it('publishes to a desk the editor has, refuses one they have not, and lists theirs', async () => {
    const me = callerSchema.parse(
      (await callApi(chat.api, 'GET', '/api/me', undefined, { user: IT })).json,
    );
    expect(me.desks).toEqual([ALL_DESK, 'it']);
    answerCiting('2003');
    const asked = await ask(IT, 'leave');
    const publish = (desk: string | undefined) =>
      callApi(
        chat.api,
        'POST',
        '/api/knowledge',
        {
          conversationId: asked.conversationId,
          inquiryId: asked.inquiryId,
          subject: 'Docking station after leave',
          category: 'Leave',
          inquiry: 'The docking station does not work after leave.',
          resolution: ['Update the firmware.'],
          ...(desk === undefined ? {} : { desk }),
        },
        { user: IT },
      );
    const refused = await publish('hr');
    expect(refused.status).toBe(400);
    expect((refused.json as { error: { field?: string } }).error.field).toBe('desk');
    expect([...written.keys()]).toEqual([]);
    const published = await publish('it');
    expect(published.status).toBe(201);
    const { issueId } = published.json as { issueId: string };
    const sidecar = JSON.parse(written.get(`${issueId}.md.metadata.json`) ?? '{}');
    expect(sidecar.metadataAttributes.desk).toBe('it');
  });

  it('publishes for everyone when the form names no desk: the sidecar says all', async () => {
    answerCiting('2003');
    const asked = await ask(HR, 'leave');
    const response = await callApi(
      chat.api,
      'POST',
      '/api/knowledge',
      {
        conversationId: asked.conversationId,
        inquiryId: asked.inquiryId,
        subject: 'Leave calendar',
        category: 'Leave',
        inquiry: 'Where is the leave calendar?',
        resolution: ['Open Outlook.'],
      },
      { user: HR },
    );
    expect(response.status, response.text).toBe(201);
    const { issueId } = response.json as { issueId: string };
    const sidecar = JSON.parse(written.get(`${issueId}.md.metadata.json`) ?? '{}');
    expect(sidecar.metadataAttributes.desk).toBe(ALL_DESK);
  });

  it("shows a lead only their desks' tickets in what helped and never retrieved", async () => {
    // The leads' own tenant, where no chat of this file was recorded: only this one.
    await insights.recordChat(
      { tenantId: LEADS_TENANT },
      {
        day: new Date().toISOString().slice(0, 10),
        conversationId: '01JDESKS000000000000000001',
        answerSeq: 2,
        outcome: 'complete',
        inputTokens: 1,
        outputTokens: 1,
        citedIssueIds: ['2001', '2003'],
        citedSubjects: { '2001': 'Parental leave application', '2003': 'Leave calendar' },
        retrievedIssueIds: ['2001', '2003'],
      },
    );
    const helped = async (user: string) => {
      const response = await callApi(chat.api, 'GET', '/api/insights', undefined, { user });
      expect(response.status).toBe(200);
      const body = insightsSchema.parse(response.json);
      return {
        cited: body.helped.mostSolved.map((use) => use.issueId).sort(),
        never: [...body.helped.neverRetrieved.sample].sort(),
        text: response.text,
      };
    };
    const hr = await helped(HR_LEAD);
    expect(hr).toMatchObject({ cited: ['2001', '2003'], never: ['2004'] });
    const it = await helped(IT_LEAD);
    expect(it).toMatchObject({ cited: ['2003'], never: ['2002'] });
    expect(it.text).not.toContain('Parental leave application');
    expect(it.text).not.toContain('2004');
  });
});

describe('the eval retrieving as a desk (ADR 0029)', () => {
  const query = {
    id: 'q1',
    query: 'leave',
    language: 'en' as const,
    slices: ['same_language' as const],
    relevant: ['2003'],
    acceptable: [],
    forbidden: [],
  };
  const localRetriever = () =>
    createKnowledgeBaseRetriever({
      client: new BedrockAgentRuntimeClient({
        endpoint: chat.bedrock.agentRuntimeEndpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
      knowledgeBaseId: chat.bedrock.knowledgeBaseId,
    });

  it('ranks only the desks it retrieves as, the local Knowledge Base filtering', async () => {
    const [asIt] = await runRetrievalEvaluation([query], localRetriever(), {
      desks: [ALL_DESK, 'it'],
    });
    expect([...(asIt?.ranked ?? [])].sort()).toEqual(['2002', '2003']);
    expect(asIt?.otherDesksReturned).toEqual([]);
  });

  it('counts another desk’s ticket a Knowledge Base let through (target 0)', async () => {
    const leaking: Retriever = {
      search: async () => [
        { issueId: '2001', subject: 's', restricted: false, desk: 'hr', text: 't', score: 0.9 },
        { issueId: '2003', subject: 's', restricted: false, desk: ALL_DESK, text: 't', score: 0.5 },
      ],
      fetchByIssueIds: async () => [],
    };
    const outcomes = await runRetrievalEvaluation([query], leaking, { desks: [ALL_DESK, 'it'] });
    expect(outcomes[0]?.ranked).toEqual(['2003']);
    expect(scoreOutcomes(outcomes).otherDesks.returned).toBe(1);
  });
});

describe('desks from the roles the sign-in grants (ADR 0028 settings, local mode)', () => {
  let fromRoles: InProcessApi;
  beforeAll(async () => {
    fromRoles = await startInProcessApi({
      bedrockOptions: { ticketsDir: folder },
      functionEnvironment: {
        DEV_USER_ROLES: 'hr-staff=HRDeskStaff,it-staff=ITDeskStaff',
        OIDC_DESK_ROLES: 'HRDeskStaff=hr,ITDeskStaff=it',
      },
      // A document bucket, so that the caller is an editor and `GET /api/me` lists the desks.
      overrides: { documents: createInMemoryKnowledgeDocuments().documents },
    });
  });
  afterAll(() => fromRoles?.stop());

  it('retrieves the HR ticket for the HR role and never for the IT role', async () => {
    const retrieved = async (user: string) => {
      const response = await postChat(fromRoles.api, { message: 'leave' }, { user });
      const chunks = eventsNamed(response, 'kb_chunks')[0] as { chunks: { issue_id: string }[] };
      return chunks.chunks.map((chunk) => chunk.issue_id);
    };
    expect(await retrieved(HR)).toContain('2001');
    expect(await retrieved(IT)).not.toContain('2001');
    const me = await callApi(fromRoles.api, 'GET', '/api/me', undefined, { user: HR });
    expect(callerSchema.parse(me.json).desks).toEqual([ALL_DESK, 'hr']);
  });
});
