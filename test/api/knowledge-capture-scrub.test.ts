import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type LocalBedrockServer,
  startLocalBedrockServer,
} from '../../local/bedrock/start-local-bedrock-server.js';
import { callApi, eventsNamed } from '../support/chat-client.js';
import { fakeRetriever, vpn } from '../support/chat-core-harness.js';
import { createInMemoryConversationStore } from '../support/in-memory-conversation-store.js';
import { createInMemoryDailyBudget } from '../support/in-memory-daily-budget.js';
import { createInMemoryKnowledgeDocuments } from '../support/in-memory-knowledge-documents.js';
import { createInProcessApi } from '../support/in-process-api.js';

// Knowledge capture's personal-data scrub through the API function's own wiring, in process
// (ADR 0019): the deployment's PERSONAL_DATA_SETTINGS reach the routes; the streamed draft the
// editor's browser receives holds placeholders, not the names, numbers and addresses the inquiry
// held; and the publish scrubs the edited draft again before the documents are written. The
// offline model drafts the inquiry from the staff messages verbatim, so whatever they hold
// reaches the draft unless the scrub takes it out.

let bedrock: LocalBedrockServer;
let api: ReturnType<typeof createInProcessApi>;
const { documents, written } = createInMemoryKnowledgeDocuments();

beforeAll(async () => {
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
  bedrock = await startLocalBedrockServer({ pacing: { minMs: 0, maxMs: 0 } });
  let next = 900_000;
  api = createInProcessApi(
    {
      MODEL_ID: 'offline.service-desk-responder',
      BEDROCK_RUNTIME_ENDPOINT: bedrock.runtimeEndpoint,
      PERSONAL_DATA_SETTINGS: JSON.stringify({
        patterns: [
          {
            kind: 'employeeId',
            pattern: '\\bE\\d{6}\\b',
            placeholder: { ja: '[社員番号]', en: '[employee id]' },
          },
        ],
        dictionary: ['鈴木 一郎'],
      }),
    },
    {
      store: createInMemoryConversationStore(),
      budget: createInMemoryDailyBudget().budget,
      retriever: fakeRetriever([vpn]).retriever,
      documents,
      issueNumbers: { next: async () => String(++next) },
    },
  );
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await bedrock?.close();
});

const editor = 'yamada.taro';
const inquiry =
  '経理部の佐藤さん（社員番号 E123456、sato.k@example.co.jp、０９０－１２３４－５６７８）から、VPNに接続できないと連絡。鈴木一郎部長も同じ症状。yamada.taro が受付。';
const LEAKS = ['佐藤', 'E123456', 'sato.k', '０９０', '1234', '鈴木', 'yamada'];

async function solvedInquiry() {
  const chat = await callApi(api, 'POST', '/api/chat', { message: inquiry }, { user: editor });
  const [meta] = eventsNamed(chat, 'meta');
  expect(eventsNamed(chat, 'result')[0]).toMatchObject({ status: 'complete' });
  return { conversationId: meta?.conversationId as string, inquiryId: meta?.inquiryId as string };
}

describe('knowledge capture removes personal data', () => {
  it('streams a draft with placeholders instead of the inquiry’s names, numbers and addresses', async () => {
    const { conversationId, inquiryId } = await solvedInquiry();
    const drafted = await callApi(
      api,
      'POST',
      `/api/conversations/${conversationId}/inquiries/${inquiryId}/knowledge-draft`,
      {},
      { user: editor },
    );
    expect(drafted.status).toBe(200);
    const [draft] = eventsNamed(drafted, 'draft');
    expect(draft?.inquiry).toBe(
      '経理部の[氏名]さん（社員番号 [社員番号]、[メール]、[電話]）から、VPNに接続できないと連絡。[氏名]部長も同じ症状。[氏名] が受付。',
    );
    const streamedInquiry = eventsNamed(drafted, 'draft_text')
      .filter((text) => text.field === 'inquiry')
      .map((text) => text.content)
      .join('');
    expect(streamedInquiry).toBe(draft?.inquiry);
    const everythingSent = JSON.stringify(drafted.events);
    for (const leak of LEAKS) expect(everythingSent).not.toContain(leak);
  });

  it('scrubs the published ticket again: a name the editor typed back is removed before it is written', async () => {
    const { conversationId, inquiryId } = await solvedInquiry();
    const published = await callApi(
      api,
      'POST',
      '/api/knowledge',
      {
        conversationId,
        inquiryId,
        subject: 'VPNに接続できない（佐藤さん）',
        category: 'VPN',
        inquiry: '佐藤さん（E123456）が VPN に接続できない。連絡先 sato.k@example.co.jp',
        resolution: ['VPN クライアントを更新', 'yamada.taro が鈴木部長に報告'],
        restricted: false,
      },
      { user: editor },
    );
    expect(published.status).toBe(201);
    const body = published.json as { issueId: string; personalDataRemoved: unknown };
    expect(body.personalDataRemoved).toEqual({
      name: 4,
      email: 1,
      phone: 0,
      secret: 0,
      myNumber: 0,
      card: 0,
      employeeId: 1,
    });
    const document = written.get(`${body.issueId}.md`) ?? '';
    expect(document).toContain('# VPNに接続できない（[氏名]さん）');
    expect(document).toContain('[氏名]さん（[社員番号]）が VPN に接続できない。連絡先 [メール]');
    expect(document).toContain('[氏名] が[氏名]部長に報告');
    for (const leak of LEAKS) expect([...written.values()].join('\n')).not.toContain(leak);
  });
});
