import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { createSyncBacklog } from '../../functions/adapters/dynamodb/sync-backlog.js';
import { ticketCategorySet } from '../../functions/contract/knowledge.js';
import { readTicketCategories } from '../../lib/ticket-categories.js';
import { LOCAL_DATA_SOURCE_ID } from '../../local/bedrock/local-bedrock-defaults.js';
import { uploadedCategoriesKey } from '../../scripts/import/upload-tickets.js';
import { callApi, eventsNamed, fetchConversation, postChat } from '../support/chat-client.js';
import { type InProcessApiOnLocalServices, startInProcessApi } from '../support/in-process-api.js';

/**
 * Knowledge capture through the API in process (ADR 0016) on the local stack's services —
 * DynamoDB Local, the local S3 endpoint and the local Bedrock endpoint's ingestion, all through
 * the real SDK clients: draft,
 * publish, the documents in the bucket, the record on the conversation, and the next question
 * retrieving and citing the new ticket; restricted tickets never retrieved; every refusal.
 */

let stack: InProcessApiOnLocalServices;
beforeAll(async () => {
  stack = await startInProcessApi({ store: 'dynamodb' });
});
afterAll(() => stack?.stop());

const errorOf = (json: unknown) => (json as { error?: { code?: string; issueId?: string } }).error;

async function solvedInquiry(user: string, message: string, on = stack) {
  const response = await postChat(on.api, { message }, { user });
  const [meta] = eventsNamed(response, 'meta');
  const [result] = eventsNamed(response, 'result');
  expect(result?.response_type).toBe('results');
  return {
    conversationId: meta?.conversationId as string,
    inquiryId: meta?.inquiryId as string,
  };
}

const draftPath = (conversationId: string, inquiryId: string) =>
  `/api/conversations/${conversationId}/inquiries/${inquiryId}/knowledge-draft`;

const quokka = {
  subject: 'Quokka badge printer prints blank name badges',
  category: 'Printer',
  inquiry: 'The Quokka badge printer at reception prints blank name badges for visitors.',
  resolution: [
    'Replaced the Quokka ribbon cartridge, which had run out.',
    'Ran the Quokka head-cleaning card once.',
  ],
  restricted: false,
};

describe('knowledge capture', () => {
  it('drafts from the solved inquiry, publishes, and the next question retrieves and cites the ticket', async () => {
    const user = 'knowledge-editor';
    const me = await callApi(stack.api, 'GET', '/api/me', undefined, { user });
    expect(me.json).toEqual({
      userId: user,
      canPublishKnowledge: true,
      canViewInsights: true,
      allowedLinkDomains: stack.functionEnvironment.ALLOWED_LINK_DOMAINS?.split(','),
      // The served folder's categories (ADR 0020): data/tickets' twenty.
      ticketCategories: readTicketCategories('data/tickets'),
      // The form's desk choice (ADR 0029): a dev user's desks are `all` only.
      desks: ['all'],
    });

    const { conversationId, inquiryId } = await solvedInquiry(
      user,
      'プリンターで名札を印刷すると白紙で出てきます',
    );
    const drafted = await callApi(
      stack.api,
      'POST',
      draftPath(conversationId, inquiryId),
      {},
      { user },
    );
    expect(drafted.status).toBe(200);
    expect(drafted.events[0]?.event).toBe('meta');
    const subjectText = eventsNamed(drafted, 'draft_text')
      .filter((data) => data.field === 'subject')
      .map((data) => data.content)
      .join('');
    const steps = eventsNamed(drafted, 'draft_step');
    const [draft] = eventsNamed(drafted, 'draft');
    expect(draft).toMatchObject({ complete: true, restricted: false, subject: subjectText });
    expect(subjectText).toContain('プリンター');
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.map((step) => step.text)).toEqual(draft?.resolution);
    expect(drafted.events.at(-1)?.event).toBe('draft');

    const published = await callApi(
      stack.api,
      'POST',
      '/api/knowledge',
      { conversationId, inquiryId, ...quokka },
      { user },
    );
    expect(published.status).toBe(201);
    const { issueId, ingestion } = published.json as { issueId: string; ingestion: string };
    expect(issueId).toMatch(/^9\d{5}$/);
    expect(ingestion).toBe('started');

    // The documents, as the Knowledge Base reads them from its bucket.
    const s3 = new S3Client({
      endpoint: stack.functionEnvironment.S3_ENDPOINT,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const read = async (key: string) =>
      (
        await s3.send(
          new GetObjectCommand({ Bucket: stack.functionEnvironment.KNOWLEDGE_BUCKET, Key: key }),
        )
      ).Body?.transformToString();
    const document = await read(`tickets/published/${issueId}.md`);
    expect(document).toContain(`# ${quokka.subject}\n\n- Ticket: ${issueId}\n- Category: Printer`);
    expect(document).toContain('1. Replaced the Quokka ribbon cartridge');
    const sidecar = JSON.parse((await read(`tickets/published/${issueId}.md.metadata.json`)) ?? '');
    expect(sidecar.metadataAttributes).toMatchObject({
      issue_id: issueId,
      restricted: false,
      source_conversation_id: conversationId,
      source_inquiry_id: inquiryId,
      author_hash: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    expect(JSON.stringify(sidecar)).not.toContain(user);

    const detail = await fetchConversation(stack.api, conversationId, user);
    expect(detail.knowledge).toEqual([
      {
        inquiryId,
        issueId,
        subject: quokka.subject,
        restricted: false,
        publishedAt: expect.any(String),
      },
    ]);

    const again = await callApi(
      stack.api,
      'POST',
      '/api/knowledge',
      { conversationId, inquiryId, ...quokka },
      { user },
    );
    expect(again.status).toBe(409);
    expect(errorOf(again.json)).toMatchObject({ code: 'already_published', issueId });

    // Another staff member, a new conversation: the ticket is retrieved and cited at once.
    const asked = await postChat(
      stack.api,
      { message: 'The Quokka badge printer prints blank badges again' },
      { user: 'another-staff-member' },
    );
    const chunks = eventsNamed(asked, 'kb_chunks')[0]?.chunks as { issue_id: string }[];
    expect(chunks.map((chunk) => chunk.issue_id)).toContain(issueId);
    const [result] = eventsNamed(asked, 'result');
    const cited = (result?.results ?? []) as { issue_id: string }[];
    expect(cited.map((ticket) => ticket.issue_id)).toContain(issueId);
  });

  it('never retrieves a restricted published ticket', async () => {
    const user = 'restricted-editor';
    const { conversationId, inquiryId } = await solvedInquiry(user, 'VPNに接続できません');
    const published = await callApi(
      stack.api,
      'POST',
      '/api/knowledge',
      {
        conversationId,
        inquiryId,
        subject: 'Wombat executive VPN token reset',
        category: 'VPN',
        inquiry: 'An executive lost the Wombat hardware token for the VPN.',
        resolution: ['Revoked the Wombat token and issued a new one.'],
        restricted: true,
      },
      { user },
    );
    expect(published.status).toBe(201);
    const { issueId } = published.json as { issueId: string };
    for (const message of ['Wombat token for the VPN was lost', `#${issueId} の件`]) {
      const asked = await postChat(stack.api, { message }, { user });
      const chunks = (eventsNamed(asked, 'kb_chunks')[0]?.chunks ?? []) as { issue_id: string }[];
      const ids = chunks.map((chunk) => chunk.issue_id);
      expect(ids).not.toContain(issueId);
      expect(asked.text).not.toContain('Wombat executive');
    }
  });

  it('refuses bad drafts field by field, and what is not the caller’s or not solved, writing nothing', async () => {
    const user = 'careful-editor';
    const { conversationId, inquiryId } = await solvedInquiry(user, 'Teamsで相手の声が聞こえない');
    const publish = (body: unknown, caller = user) =>
      callApi(stack.api, 'POST', '/api/knowledge', body, { user: caller });
    const valid = { conversationId, inquiryId, ...quokka };
    const cases: [unknown, string][] = [
      [{ ...valid, category: 'Printers' }, 'category'],
      [{ ...valid, resolution: [] }, 'resolution'],
      [{ ...valid, resolution: ['ok', '   '] }, 'resolution'],
      [{ ...valid, subject: 'two\nlines' }, 'subject'],
      [{ ...valid, subject: 'x'.repeat(201) }, 'subject'],
      [{ ...valid, inquiry: '\u200b' }, 'inquiry'],
      // Stored text is clean text: a bidi override or a control character in any field.
      [{ ...valid, subject: 'VPN \u202Egnp.exe' }, 'subject'],
      [{ ...valid, inquiry: 'VPN\u0000に接続できない' }, 'inquiry'],
      [{ ...valid, resolution: ['ok', 'run \u001b[2J'] }, 'resolution'],
      [{ ...valid, restricted: 'no' }, 'restricted'],
      [{ ...valid, extra: 1 }, 'extra'],
      [{ ...valid, inquiryId: 'nope' }, 'inquiryId'],
    ];
    for (const [body, field] of cases) {
      const response = await publish(body);
      expect(response.status, field).toBeGreaterThanOrEqual(400);
      expect(response.status, field).toBeLessThan(500);
      expect(JSON.stringify(response.json), field).toContain(field);
    }
    const plain = await callApi(stack.api, 'POST', '/api/knowledge', 'x', {
      user,
      headers: { 'content-type': 'text/plain' },
    });
    expect(plain.status).toBe(415);

    expect((await publish(valid, 'somebody-else')).status).toBe(404);
    expect(
      (await publish({ ...valid, inquiryId: '01ARZ3NDEKTSV4RRFFQ69G5FAV' })).json,
    ).toMatchObject({ error: { code: 'inquiry_not_found' } });

    // A clarification awaiting its reply is no solved inquiry.
    const vague = await postChat(stack.api, { message: 'ログインできない' }, { user });
    const [vagueMeta] = eventsNamed(vague, 'meta');
    expect(eventsNamed(vague, 'result')[0]?.response_type).toBe('clarification');
    const unsolved = {
      ...valid,
      conversationId: vagueMeta?.conversationId,
      inquiryId: vagueMeta?.inquiryId,
    };
    expect(errorOf((await publish(unsolved)).json)?.code).toBe('inquiry_not_solved');
    const draft = await callApi(
      stack.api,
      'POST',
      draftPath(unsolved.conversationId as string, unsolved.inquiryId as string),
      {},
      { user },
    );
    expect(draft.status).toBe(409);

    // Nothing of the above was recorded.
    expect((await fetchConversation(stack.api, conversationId, user)).knowledge).toBeUndefined();
  });
});

describe('knowledge capture: links in a published ticket', () => {
  it('warns the editor, and an answer citing the ticket keeps the link out of the mail draft', async () => {
    const editor = 'link-editor';
    const { conversationId, inquiryId } = await solvedInquiry(
      editor,
      'Numbatルーターに接続できません',
    );
    const published = await callApi(
      stack.api,
      'POST',
      '/api/knowledge',
      {
        conversationId,
        inquiryId,
        subject: 'Numbatルーターのパスワードをリセットしたい',
        category: 'Network',
        inquiry: 'Numbatルーターのパスワードを忘れて接続できない。',
        resolution: [
          'Numbatルーターのパスワードは http://evil.example/reset でリセットするよう案内した。',
          '不明点は helpdesk@example.co.jp か [サポート](https://support.microsoft.com) へ。',
        ],
        restricted: false,
      },
      { user: editor },
    );
    expect(published.status).toBe(201);
    expect((published.json as { unverifiedLinks: string[] }).unverifiedLinks).toEqual([
      'http://evil.example/reset',
    ]);

    // Another staff member asks; the offline responder copies the ticket's steps into the
    // advice, the mail draft and the to-dos.
    const user = 'link-requester';
    const response = await postChat(
      stack.api,
      { message: 'Numbatルーターのパスワードをリセットしたい' },
      { user },
    );
    const [result] = eventsNamed(response, 'result') as Array<{
      general_advice: string;
      mail_draft?: string;
      todo_actions?: string[];
      unverified_links?: string[];
    }>;
    expect(result?.general_advice).toContain('Numbat');
    expect(result?.mail_draft).toContain('Numbat');
    expect(result?.mail_draft).not.toContain('evil.example');
    expect(result?.mail_draft).toContain('［リンク削除］');
    expect(result?.mail_draft).toContain('helpdesk@example.co.jp');
    expect(JSON.stringify(result?.todo_actions)).not.toContain('evil.example');
    expect(result?.unverified_links).toEqual(['http://evil.example/reset']);
    const [meta] = eventsNamed(response, 'meta');
    const stored = await fetchConversation(stack.api, meta?.conversationId as string, user);
    const answer = stored.turns.at(-1) as { result?: { mail_draft?: string } };
    expect(answer.result?.mail_draft).not.toContain('evil.example');
  });
});

describe('categories of tickets uploaded after the deploy', () => {
  let uploaded: InProcessApiOnLocalServices;
  beforeAll(async () => {
    uploaded = await startInProcessApi({ store: 'dynamodb' });
    // What `npm run import -- --from servicenow … --upload` leaves beside the tickets.
    const s3 = new S3Client({
      endpoint: uploaded.functionEnvironment.S3_ENDPOINT,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await s3.send(
      new PutObjectCommand({
        Bucket: uploaded.functionEnvironment.KNOWLEDGE_BUCKET,
        Key: uploadedCategoriesKey('servicenow'),
        Body: JSON.stringify(['network', 'inquiry']),
      }),
    );
  });
  afterAll(() => uploaded?.stop());

  it('reach the form and the publish check without a deploy', async () => {
    const user = 'editor-of-imports';
    const me = await callApi(uploaded.api, 'GET', '/api/me', undefined, { user });
    const categories = (me.json as { ticketCategories: string[] }).ticketCategories;
    // The uploaded source adds `inquiry`; its `network` is the sample tickets' `Network`.
    expect(categories).toEqual(
      ticketCategorySet([...readTicketCategories('data/tickets'), 'inquiry']),
    );
    expect(categories.filter((category) => category.toLowerCase() === 'network')).toEqual([
      'Network',
    ]);
    const { conversationId, inquiryId } = await solvedInquiry(
      user,
      'プリンターで名札を印刷すると白紙で出てきます',
      uploaded,
    );
    const published = await callApi(
      uploaded.api,
      'POST',
      '/api/knowledge',
      { conversationId, inquiryId, ...quokka, category: 'inquiry' },
      { user },
    );
    expect(published.status).toBe(201);
    const refused = await callApi(
      uploaded.api,
      'POST',
      '/api/knowledge',
      { conversationId, inquiryId, ...quokka, category: 'not-a-category' },
      { user },
    );
    expect(refused.status).toBe(400);
  });
});

describe('knowledge editors', () => {
  let editorsOnly: InProcessApiOnLocalServices;
  beforeAll(async () => {
    editorsOnly = await startInProcessApi({
      store: 'dynamodb',
      functionEnvironment: { KNOWLEDGE_EDITORS: 'editor-one, editor-two' },
    });
  });
  afterAll(() => editorsOnly?.stop());

  it('lets only the listed dev users draft and publish', async () => {
    const me = await callApi(editorsOnly.api, 'GET', '/api/me', undefined, { user: 'staff' });
    expect(me.json).toEqual({ userId: 'staff', canPublishKnowledge: false, canViewInsights: true });
    const asked = await postChat(
      editorsOnly.api,
      { message: 'プリンターが紙詰まりする' },
      { user: 'staff' },
    );
    const [meta] = eventsNamed(asked, 'meta');
    const body = { conversationId: meta?.conversationId, inquiryId: meta?.inquiryId, ...quokka };
    const refused = await callApi(editorsOnly.api, 'POST', '/api/knowledge', body, {
      user: 'staff',
    });
    expect(refused.status).toBe(403);
    expect(errorOf(refused.json)?.code).toBe('not_a_knowledge_editor');
    const draft = await callApi(
      editorsOnly.api,
      'POST',
      draftPath(meta?.conversationId as string, meta?.inquiryId as string),
      {},
      { user: 'staff' },
    );
    expect(draft.status).toBe(403);
    const editor = await callApi(editorsOnly.api, 'GET', '/api/me', undefined, {
      user: 'editor-two',
    });
    expect(editor.json).toEqual({
      userId: 'editor-two',
      canPublishKnowledge: true,
      canViewInsights: true,
      allowedLinkDomains: editorsOnly.functionEnvironment.ALLOWED_LINK_DOMAINS?.split(','),
      ticketCategories: readTicketCategories('data/tickets'),
      desks: ['all'],
    });
  });
});

/** A port nothing listens on: every call to it is refused (after the SDK's own retries). */
const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

describe('a sync that cannot start when the ticket is published', () => {
  let busy: InProcessApiOnLocalServices;
  beforeAll(async () => {
    // The function's Bedrock Agent endpoint refuses every StartIngestionJob; retrieval and the
    // model still answer from the local Bedrock endpoint.
    busy = await startInProcessApi({
      store: 'dynamodb',
      functionEnvironment: { BEDROCK_AGENT_ENDPOINT: `http://127.0.0.1:${await closedPort()}` },
    });
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    await busy?.stop();
  });

  it('answers pending, owes the sync, and the catch-up makes the ticket searchable', async () => {
    const user = 'editor-during-a-sync';
    const { conversationId, inquiryId } = await solvedInquiry(
      user,
      'プリンターで名札が白紙で出る',
      busy,
    );
    const published = await callApi(
      busy.api,
      'POST',
      '/api/knowledge',
      { conversationId, inquiryId, ...quokka, subject: 'Quokka badges print blank after a sync' },
      { user },
    );
    expect(published.status).toBe(201);
    const { issueId, ingestion } = published.json as { issueId: string; ingestion: string };
    expect(ingestion).toBe('pending');

    const syncBacklog = createSyncBacklog({
      documents: DynamoDBDocumentClient.from(
        new DynamoDBClient({
          endpoint: busy.dynamoDbEndpoint,
          region: 'us-east-1',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
      ),
      tables: { turns: busy.functionEnvironment.TURNS_TABLE as string },
    });
    expect(await syncBacklog.read()).toEqual({ pendingSince: expect.any(String), marks: 1 });
    const retrievedFor = async (message: string) => {
      const asked = await postChat(busy.api, { message }, { user: 'another-staff-member' });
      const chunks = eventsNamed(asked, 'kb_chunks')[0]?.chunks as { issue_id: string }[];
      return chunks.map((chunk) => chunk.issue_id);
    };
    // Stored and recorded, but not yet in the index: no sync has run since.
    expect(await retrievedFor('Quokka badges print blank')).not.toContain(issueId);

    // The sync catch-up function as Lambda loads it, with this stack's table and endpoints.
    const catchUpEnvironment = {
      TURNS_TABLE: busy.functionEnvironment.TURNS_TABLE as string,
      KNOWLEDGE_BASE_ID: busy.bedrock.knowledgeBaseId,
      KNOWLEDGE_DATA_SOURCE_ID: busy.bedrock.dataSourceId,
      DYNAMODB_ENDPOINT: busy.dynamoDbEndpoint,
      BEDROCK_AGENT_ENDPOINT: busy.bedrock.agentEndpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    };
    for (const [name, value] of Object.entries(catchUpEnvironment)) vi.stubEnv(name, value);
    // A fresh module, as a new execution environment loads it: the module reads its settings
    // once, and the test process may already hold it with another file's settings.
    vi.resetModules();
    const { handler } = await import('../../functions/knowledge-sync/handler.js');
    const caughtUp = await handler();
    expect(caughtUp.outcome).toBe('started');
    expect(await syncBacklog.read()).toBeUndefined();
    expect(await retrievedFor('Quokka badges print blank')).toContain(issueId);
  });
});

describe('a document bucket that cannot be reached', () => {
  let unreachable: InProcessApiOnLocalServices;
  beforeAll(async () => {
    // From the registry as the catch-up test above left it (`vi.resetModules()`): the API imports
    // its knowledge routes on their first request, and their error classes must be the ones its
    // error rendering checks against.
    const { startInProcessApi } = await import('../support/in-process-api.js');
    unreachable = await startInProcessApi({
      store: 'dynamodb',
      environment: {
        DYNAMODB_ENDPOINT: inject('dynamoDbEndpoint'),
        S3_ENDPOINT: `http://127.0.0.1:${await closedPort()}`,
        KNOWLEDGE_BUCKET: 'unreachable-bucket',
        KNOWLEDGE_DATA_SOURCE_ID: LOCAL_DATA_SOURCE_ID,
      },
    });
  });
  afterAll(() => unreachable?.stop());

  it('answers 503 knowledge_store_unavailable and records nothing', async () => {
    const user = 'editor-without-bucket';
    const asked = await postChat(
      unreachable.api,
      { message: 'プリンターで印刷できません' },
      { user },
    );
    const [meta] = eventsNamed(asked, 'meta');
    const conversationId = meta?.conversationId as string;
    const response = await callApi(
      unreachable.api,
      'POST',
      '/api/knowledge',
      { conversationId, inquiryId: meta?.inquiryId, ...quokka },
      { user },
    );
    expect(response.status).toBe(503);
    expect(errorOf(response.json)?.code).toBe('knowledge_store_unavailable');
    expect(response.headers.get('retry-after')).toBe('5');
    const detail = await fetchConversation(unreachable.api, conversationId, user);
    expect(detail.knowledge).toBeUndefined();
  });
});
