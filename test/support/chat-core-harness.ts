import { admitChat } from '../../functions/chat/chat-route.js';
import type {
  ChatModel,
  ChatModelEvent,
  ChatModelRequest,
  ChatTelemetry,
  RetrievedTicket,
  Retriever,
  Turn,
} from '../../functions/chat/ports.js';
import { type ChatConfig, defaultChatConfig } from '../../functions/chat/ports.js';
import { streamChat } from '../../functions/chat/run-chat.js';
import type { Answer } from '../../functions/contract/answer.js';
import type { StreamEvent } from '../../functions/contract/chat-events.js';
import { ALL_DESK } from '../../functions/contract/desks.js';
import type { SurgeNotice } from '../../functions/contract/surges.js';
import type { DailyBudget } from '../../functions/model-call/daily-budget.js';
import type { SurgeCheck } from '../../functions/surges/surge-check.js';
import { createInMemoryConversationStore } from './in-memory-conversation-store.js';
import { silentLog } from './silent-log.js';
import { splitIntoFragments } from './split-into-fragments.js';

/**
 * The chat core with in-memory ports for `test/chat/run-chat*.test.ts`: a scripted model, a fake
 * Knowledge Base, sample tickets and answers, and `harness()`, which runs one chat the way the
 * route does (begin before the first byte, then stream).
 */

export const alice = { tenantId: 't1', userId: 'alice' };
/** Alice as the chat route sees her: her desks are `all` only (ADR 0029). */
export const aliceCaller = { owner: alice, desks: [ALL_DESK] };

/** A stored turn: a complete user question of inquiry `I1` unless `partial` says otherwise. */
export const storedTurn = (seq: number, partial: Partial<Turn>): Turn => ({
  seq,
  role: 'user',
  kind: 'question',
  inquiryId: 'I1',
  text: '',
  status: 'complete',
  createdAt: '2026-01-01T00:00:00Z',
  ...partial,
});

export const ticket = (issueId: string, subject: string, extra: Partial<RetrievedTicket> = {}) =>
  ({
    issueId,
    subject,
    category: 'PC',
    restricted: false,
    desk: ALL_DESK,
    text: `## ${subject}\nResolution for ${subject}.`,
    score: 0.8,
    ...extra,
  }) satisfies RetrievedTicket;

export const printer = ticket('1001', 'プリンターの設置');
export const vpn = ticket('1002', 'VPNに接続できない', { score: 0.7 });
export const secret = ticket('1003', '役員PCの設定', { restricted: true, score: 0.9 });

export type ModelStep =
  | {
      kind: 'answer';
      answer: object;
      stopReason?: 'tool_use' | 'max_tokens';
      fragmentSize?: number;
    }
  | { kind: 'raw'; fragments: string[]; stop?: boolean }
  | { kind: 'throw'; error: Error }
  | { kind: 'hang' };

/** A model that plays one step per call and records every request it got. */
export function scriptedModel(...steps: ModelStep[]) {
  const requests: ChatModelRequest[] = [];
  const model: ChatModel = {
    async *stream(request): AsyncIterable<ChatModelEvent> {
      requests.push(request);
      const step = steps[requests.length - 1];
      if (!step) throw new Error(`unexpected model call #${requests.length}`);
      if (step.kind === 'throw') throw step.error;
      if (step.kind === 'hang') {
        yield { type: 'tool_input', fragment: '{"general_advice":"thinking' };
        await new Promise((resolve) => request.signal?.addEventListener('abort', resolve));
        return;
      }
      const fragments =
        step.kind === 'raw'
          ? step.fragments
          : splitIntoFragments(JSON.stringify(step.answer), [step.fragmentSize ?? 5]);
      for (const fragment of fragments) yield { type: 'tool_input', fragment };
      if (step.kind === 'raw' && step.stop === false) return;
      yield {
        type: 'stop',
        reason: step.kind === 'answer' ? (step.stopReason ?? 'tool_use') : 'tool_use',
      };
    },
  };
  return { model, requests };
}

/** A Knowledge Base holding `tickets`; records the queries and the fetched issue ids. */
export function fakeRetriever(tickets: readonly RetrievedTicket[], failure?: Error) {
  const queries: string[] = [];
  const fetched: string[][] = [];
  const retriever: Retriever = {
    async search(query) {
      queries.push(query);
      if (failure) throw failure;
      return tickets.map((entry) => ({ ...entry }));
    },
    async fetchByIssueIds(issueIds) {
      fetched.push([...issueIds]);
      return tickets.filter((entry) => issueIds.includes(entry.issueId));
    },
  };
  return { retriever, queries, fetched };
}

export const results = (
  advice: string,
  issueIds: readonly string[],
  extra: Partial<Answer> = {},
) => ({
  response_type: 'results',
  general_advice: advice,
  results: issueIds.map((issueId) => ({
    issue_id: issueId,
    subject: `subject ${issueId}`,
    summary: 'summary',
    resolution: 'resolution',
  })),
  mail_draft: 'mail',
  todo_actions: ['check'],
  ...extra,
});

export const clarification = {
  response_type: 'clarification',
  general_advice: 'どのシステムですか？',
  question: 'どのシステムにログインできませんか？',
  options: ['Salesforce', 'VPN'],
};

/**
 * A surge check that records every inquiry counted (text and inquiry id) and answers `notice`;
 * it reads no known issues.
 */
export function countingSurgeCheck(notice?: SurgeNotice) {
  const counted: { text: string; inquiryId: string }[] = [];
  const surges: SurgeCheck = {
    readKnownIssues: () => ({ matching: async () => [] }),
    countInquiry: async (_owner, inquiry) => {
      counted.push({ text: inquiry.text, inquiryId: inquiry.inquiryId });
      return notice;
    },
  };
  return { surges, counted };
}

export function harness(options: {
  model: ChatModel;
  tickets?: readonly RetrievedTicket[];
  retrievalFailure?: Error;
  config?: Partial<ChatConfig>;
  remainingTimeMs?: () => number;
  budget?: DailyBudget;
  telemetry?: ChatTelemetry;
  surges?: SurgeCheck;
  /** @default the real clock */
  now?: () => Date;
}) {
  const store = createInMemoryConversationStore();
  const kb = fakeRetriever(options.tickets ?? [printer, vpn, secret], options.retrievalFailure);
  const config: ChatConfig = {
    ...defaultChatConfig,
    modelId: 'test.model',
    numberOfResults: 8,
    // No budget unless a test gives one.
    dailyTokenBudget: 0,
    stopPollMs: 5,
    // Context assembly is checked on the inquiry text itself; the expansion has its own tests
    // (retrieval.test.ts) and one below.
    queryExpansion: false,
    ...options.config,
  };
  const dependencies = {
    store,
    retriever: kb.retriever,
    model: options.model,
    config,
    now: options.now ?? (() => new Date()),
    log: silentLog,
    remainingTimeMs: options.remainingTimeMs ?? (() => 60_000),
    ...(options.budget ? { budget: options.budget } : {}),
    ...(options.telemetry ? { telemetry: options.telemetry } : {}),
    ...(options.surges ? { surges: options.surges } : {}),
  };
  /** One chat as the route runs it: begin before the first byte, then stream. */
  async function chat(
    message: string,
    extra: { conversationId?: string; clientMessageId?: string; inquiry?: 'continue' | 'new' } = {},
  ) {
    const begun = await admitChat(aliceCaller, { message, ...extra }, dependencies);
    const events: StreamEvent[] = [];
    await streamChat(begun, (event) => events.push(event), dependencies);
    return { begun, events, conversationId: begun.conversation.conversationId };
  }
  return { chat, store, kb, dependencies };
}

export const named = <N extends StreamEvent['event']>(events: readonly StreamEvent[], name: N) =>
  events.filter((event): event is Extract<StreamEvent, { event: N }> => event.event === name);
export const lastUserText = (request: ChatModelRequest | undefined) =>
  request?.messages.at(-1)?.text ?? '';
