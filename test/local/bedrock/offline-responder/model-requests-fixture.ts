import type {
  BedrockRuntimeClient,
  ConverseStreamCommand,
  ConverseStreamCommandInput,
} from '@aws-sdk/client-bedrock-runtime';
import { createBedrockChatModel } from '../../../../functions/adapters/bedrock/bedrock-chat-model.js';
import { buildModelRequest } from '../../../../functions/chat/model-request.js';
import { type ChatModelRequest, defaultChatConfig } from '../../../../functions/chat/ports.js';
import { detectLanguage } from '../../../../functions/contract/language.js';
import { MAIL_DRAFT_STYLES } from '../../../../functions/contract/mail-draft.js';
import {
  buildHandoffRequest,
  handoffTranscript,
} from '../../../../functions/handoff/handoff-summary.js';
import {
  buildDraftRequest,
  inquiryTranscript,
} from '../../../../functions/knowledge/ticket-draft.js';
import { buildRefineRequest } from '../../../../functions/mail-draft/refine-mail-draft.js';
import { readTicketCategories } from '../../../../lib/ticket-categories.js';
import type { ConverseWireRequest } from '../../../../local/bedrock/recorded-requests.js';
import { clarification, results, storedTurn } from '../../../support/chat-core-harness.js';
import { TICKET_A, TICKET_B } from './offline-prompt-fixture.js';

/**
 * Requests of every model-backed feature, built by the features' own prompt builders and sent
 * through the real Bedrock adapter, so each is the ConverseStream body the local endpoint gets:
 * system prompt, tool description and schema included.
 */

/** The request body the Bedrock adapter sends for `request` (captured, not sent). */
export async function wireBodyOf(
  request: Omit<ChatModelRequest, 'signal'>,
): Promise<ConverseWireRequest> {
  let input: ConverseStreamCommandInput | undefined;
  const client = {
    send: async (command: ConverseStreamCommand) => {
      input = command.input;
      return { stream: [] };
    },
  } as unknown as BedrockRuntimeClient;
  const model = createBedrockChatModel({ client, modelId: 'offline.service-desk-responder' });
  for await (const _event of model.stream({ ...request, signal: new AbortController().signal })) {
    // The captured request has no events.
  }
  const { modelId: _modelId, ...body } = input ?? {};
  return JSON.parse(JSON.stringify(body)) as ConverseWireRequest;
}

const chatRequest = (
  working: Parameters<typeof buildModelRequest>[0]['working'],
  options: { tickets?: (typeof TICKET_A)[]; archive?: { question: string; advice: string }[] } = {},
) =>
  buildModelRequest({
    working,
    archive: (options.archive ?? []).map((entry, index) => ({
      inquiryId: `archived-${index}`,
      followUps: [],
      ...entry,
    })),
    tickets: options.tickets ?? [TICKET_A, TICKET_B],
    // As the chat core decides it: the language of the inquiry's own user text.
    language: detectLanguage(
      working
        .filter((turn) => turn.role === 'user')
        .map((turn) => turn.text)
        .join('\n'),
    ),
    archiveBudget: defaultChatConfig.archiveBudget,
    maxTokens: defaultChatConfig.maxTokens,
  });

const user = (text: string) => ({ role: 'user' as const, text });

const conversation = [
  storedTurn(1, { inquiryId: 'A', text: 'プリンターで印刷できない' }),
  storedTurn(2, {
    inquiryId: 'A',
    role: 'assistant',
    kind: 'answer',
    text: 'ドライバー',
    result: results('ドライバーを再インストールしてください', ['1001'], {
      todo_actions: ['ドライバーを削除する', 'ドライバーを入れ直す'],
      mail_draft: 'お問い合わせありがとうございます。\nドライバーを入れ直してください。',
    }) as never,
  }),
  storedTurn(3, { inquiryId: 'B', text: 'Cannot connect to the VPN on Windows 11 since today.' }),
  storedTurn(4, {
    inquiryId: 'B',
    role: 'assistant',
    kind: 'answer',
    text: 'VPN',
    result: results('Update the VPN client', ['1002'], {
      todo_actions: ['Check the certificate', 'Reinstall the client'],
      mail_draft: 'Hello,\nplease update the VPN client.',
    }) as never,
  }),
  storedTurn(5, { inquiryId: 'C', text: 'ログインできない' }),
  storedTurn(6, {
    inquiryId: 'C',
    role: 'assistant',
    kind: 'clarification',
    text: clarification.question,
    result: clarification as never,
  }),
];

const SAMPLE_CATEGORIES = readTicketCategories('data/tickets');
const refineSource = {
  draft:
    'お問い合わせありがとうございます。\n電源を入れ直してください。その後、もう一度印刷してください。\nよろしくお願いいたします。',
  inquiry: ['プリンターが動きません'],
  cited: [{ issue_id: '1001', subject: 'プリンター故障', resolution: '電源を入れ直した' }],
};

/** One request per feature and case, named. */
export function featureRequests(): { name: string; request: Omit<ChatModelRequest, 'signal'> }[] {
  return [
    {
      name: 'chat: a short inquiry (clarification)',
      request: chatRequest([user('ログインできない')]),
    },
    {
      name: 'chat: a specific Japanese inquiry (results)',
      request: chatRequest([
        user('Salesforceにログインしようとするとパスワードが正しくありませんと表示されます'),
      ]),
    },
    {
      name: 'chat: an English inquiry with an archive',
      request: chatRequest([user('AnyConnect says Login failed after a password reset')], {
        archive: [{ question: 'Teams audio (#9008)', advice: 'See #9008' }],
      }),
    },
    {
      name: 'chat: the answer to a clarification',
      request: chatRequest([
        user('ログインできない'),
        { role: 'assistant', text: '', result: clarification as never },
        user('VPN：Cannot log in to VPN (Login failed)'),
      ]),
    },
    { name: 'chat: no tickets', request: chatRequest([user('Cannot log in')], { tickets: [] }) },
    ...(['A', 'B'] as const).map((inquiryId) => ({
      name: `knowledge draft: inquiry ${inquiryId}`,
      request: buildDraftRequest(
        inquiryTranscript(conversation, inquiryId),
        2048,
        new Map([['1001', 'Printer']]),
        SAMPLE_CATEGORIES,
      ),
    })),
    ...MAIL_DRAFT_STYLES.map((style) => ({
      name: `mail draft refinement: ${style}`,
      request: buildRefineRequest({ ...refineSource, style }, 4096),
    })),
    ...(['A', 'B', 'C'] as const).flatMap((inquiryId) =>
      (['ja', 'en'] as const).map((language) => ({
        name: `hand-off summary: inquiry ${inquiryId} in ${language}`,
        request: buildHandoffRequest(handoffTranscript(conversation, inquiryId), language, 2048),
      })),
    ),
  ];
}

export { conversation as handoffConversation };
