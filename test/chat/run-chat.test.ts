import { describe, expect, it } from 'vitest';
import type {
  ChatModel,
  ChatModelEvent,
  ChatModelRequest,
  RetrievedTicket,
  Retriever,
} from '../../functions/chat/ports.js';
import { type ChatConfig, ChatModelError, defaultChatConfig } from '../../functions/chat/ports.js';
import { promptLabels } from '../../functions/chat/prompt-text.js';
import { beginChat, streamChat } from '../../functions/chat/run-chat.js';
import type { Answer } from '../../functions/contract/answer.js';
import type { ChatEvent } from '../../functions/contract/chat-events.js';
import { createInMemoryConversationStore } from '../support/in-memory-conversation-store.js';
import { splitIntoFragments } from '../support/split-into-fragments.js';

/**
 * The chat pipeline with in-memory ports: no Java, no HTTP, no emulator. What is checked here is
 * the core's own behaviour — context assembly, grounding, clarification, every failure path; the
 * same pipeline over DynamoDB Local and the local Bedrock endpoint is covered in test/api.
 */

const alice = { tenantId: 't1', userId: 'alice' };

const ticket = (issueId: string, subject: string, extra: Partial<RetrievedTicket> = {}) =>
  ({
    issueId,
    subject,
    category: 'PC',
    restricted: false,
    text: `## ${subject}\nResolution for ${subject}.`,
    score: 0.8,
    ...extra,
  }) satisfies RetrievedTicket;

const printer = ticket('1001', 'プリンターの設置');
const vpn = ticket('1002', 'VPNに接続できない', { score: 0.7 });
const secret = ticket('1003', '役員PCの設定', { restricted: true, score: 0.9 });

type ModelStep =
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
function scriptedModel(...steps: ModelStep[]) {
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
function fakeRetriever(tickets: readonly RetrievedTicket[], failure?: Error) {
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

const results = (advice: string, issueIds: readonly string[], extra: Partial<Answer> = {}) => ({
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

const clarification = {
  response_type: 'clarification',
  general_advice: 'どのシステムですか？',
  question: 'どのシステムにログインできませんか？',
  options: ['Salesforce', 'VPN'],
};

function harness(options: {
  model: ChatModel;
  tickets?: readonly RetrievedTicket[];
  retrievalFailure?: Error;
  config?: Partial<ChatConfig>;
  remainingTimeMs?: () => number;
}) {
  const store = createInMemoryConversationStore();
  const kb = fakeRetriever(options.tickets ?? [printer, vpn, secret], options.retrievalFailure);
  const config: ChatConfig = {
    ...defaultChatConfig,
    modelId: 'test.model',
    stopPollMs: 5,
    // Context assembly is checked on the inquiry text itself; the expansion has its own tests
    // (retrieval-query.test.ts) and one below.
    queryExpansion: false,
    ...options.config,
  };
  const dependencies = {
    store,
    retriever: kb.retriever,
    model: options.model,
    config,
    now: () => new Date(),
    remainingTimeMs: options.remainingTimeMs ?? (() => 60_000),
  };
  /** One chat as the route runs it: begin before the first byte, then stream. */
  async function chat(
    message: string,
    extra: { conversationId?: string; clientMessageId?: string; inquiry?: 'continue' | 'new' } = {},
  ) {
    const begun = await beginChat(alice, { message, ...extra }, dependencies);
    const events: ChatEvent[] = [];
    await streamChat(begun, (event) => events.push(event), dependencies);
    return { begun, events, conversationId: begun.conversation.conversationId };
  }
  return { chat, store, kb, dependencies };
}

const named = <N extends ChatEvent['event']>(events: readonly ChatEvent[], name: N) =>
  events.filter((event): event is Extract<ChatEvent, { event: N }> => event.event === name);
const lastUserText = (request: ChatModelRequest | undefined) =>
  request?.messages.at(-1)?.text ?? '';

describe('streamChat', () => {
  it('streams meta → progress → kb → tokens → tickets → result and stores the answer with its model id', async () => {
    const { model } = scriptedModel({
      kind: 'answer',
      answer: results('設置手順です。', ['1001']),
    });
    const { chat, store } = harness({ model });
    const { events, conversationId } = await chat('プリンターを設置したい');

    expect(events.map((event) => event.event)).toEqual([
      'meta',
      'progress',
      'progress',
      'kb_query',
      'kb_chunks',
      'progress',
      'progress',
      ...named(events, 'token').map(() => 'token'),
      'ticket',
      'result',
    ]);
    expect(named(events, 'meta')[0]?.data).toMatchObject({ version: 1, modelId: 'test.model' });
    expect(
      named(events, 'token')
        .map((event) => event.data.content)
        .join(''),
    ).toBe('設置手順です。');
    expect(named(events, 'result')[0]?.data).toMatchObject({ status: 'complete', version: 2 });
    expect(store.turnsOf(alice, conversationId)).toMatchObject([
      { seq: 1, role: 'user', kind: 'question' },
      { seq: 2, role: 'assistant', kind: 'answer', status: 'complete', modelId: 'test.model' },
    ]);
  });

  it('never passes a restricted ticket to the model or the page, whatever the retriever returned', async () => {
    const { model, requests } = scriptedModel({
      kind: 'answer',
      answer: results('a', ['1003', '1001']),
    });
    const { chat } = harness({ model });
    const { events } = await chat('PCの設定');

    const chunks = named(events, 'kb_chunks')[0]?.data.chunks.map((chunk) => chunk.issue_id);
    expect(chunks).toEqual(['1001', '1002']);
    expect(lastUserText(requests[0])).not.toContain('1003');
    expect(named(events, 'ticket').map((event) => event.data.issue_id)).toEqual(['1001']);
  });

  it('drops cited tickets that were not retrieved (grounding) and normalizes the ones that were', async () => {
    const { model } = scriptedModel({
      kind: 'answer',
      answer: results('a', ['9999', '#1002', 'INC-1001']),
    });
    const { chat } = harness({ model });
    const { events } = await chat('VPNとプリンター');

    expect(named(events, 'ticket').map((event) => event.data.issue_id)).toEqual(['1002', '1001']);
    expect(named(events, 'result')[0]?.data.results?.map((result) => result.issue_id)).toEqual([
      '1002',
      '1001',
    ]);
  });

  it('keeps a closed inquiry out of retrieval and the messages, and shows it only as archive text', async () => {
    const { model, requests } = scriptedModel(
      { kind: 'answer', answer: results('プリンターの設置は総務へ。', ['1001']) },
      { kind: 'answer', answer: results('VPNの再接続を。', ['1002']) },
    );
    const { chat, kb } = harness({ model });
    const first = await chat('プリンターを設置したい');
    await chat('VPNに接続できない', { conversationId: first.conversationId });

    expect(kb.queries).toEqual(['プリンターを設置したい', 'VPNに接続できない']);
    const second = requests[1];
    expect(second?.messages).toHaveLength(1);
    expect(second?.messages[0]?.role).toBe('user');
    const text = lastUserText(second);
    expect(text).toContain(promptLabels.ja.archive);
    expect(text).toContain('プリンターを設置したい');
    expect(text.endsWith(`${promptLabels.ja.inquiry}\nVPNに接続できない`)).toBe(true);
  });

  it('asks back, keeps the inquiry open, and answers the chosen option from the whole inquiry', async () => {
    const { model, requests } = scriptedModel(
      { kind: 'answer', answer: clarification },
      { kind: 'answer', answer: results('Salesforceのパスワードをリセット。', ['1002']) },
    );
    const { chat, kb, store } = harness({ model });
    const first = await chat('ログインできない');
    expect(named(first.events, 'result')[0]?.data).toMatchObject({
      response_type: 'clarification',
      options: ['Salesforce', 'VPN'],
    });
    const second = await chat('Salesforce', { conversationId: first.conversationId });

    expect(kb.queries).toEqual(['ログインできない', 'ログインできない\nSalesforce']);
    expect(second.begun.turn).toMatchObject({
      kind: 'option',
      inquiryId: first.begun.turn.inquiryId,
    });
    // The working buffer goes as messages: question, the clarification as compact JSON, the option.
    expect(requests[1]?.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
    expect(JSON.parse(requests[1]?.messages[1]?.text ?? '')).toEqual({
      response_type: 'clarification',
      question: clarification.question,
      options: clarification.options,
    });
    const summary = await store.getConversation(alice, first.conversationId);
    expect(summary.openInquiryId).toBeUndefined();
  });

  it('fetches tickets the inquiry names by number, but never numbers from earlier answers', async () => {
    const { model } = scriptedModel(
      { kind: 'answer', answer: results('1002 を参照。#1002', ['1002']) },
      { kind: 'answer', answer: results('b', []) },
    );
    const { chat, kb } = harness({ model });
    const first = await chat('チケット1002と同じ件です');
    await chat('別件：プリンター', { conversationId: first.conversationId });

    expect(kb.fetched).toEqual([['1002']]);
  });

  it('replays the stored answer to a retried message instead of calling the model again', async () => {
    const { model, requests } = scriptedModel({
      kind: 'answer',
      answer: results('一度だけ', ['1001']),
    });
    const { chat, store } = harness({ model });
    const first = await chat('プリンター', { clientMessageId: 'client-0001' });
    const retry = await chat('プリンター', {
      conversationId: first.conversationId,
      clientMessageId: 'client-0001',
    });

    expect(requests).toHaveLength(1);
    expect(retry.begun.duplicate).toBe(true);
    expect(
      named(retry.events, 'token')
        .map((event) => event.data.content)
        .join(''),
    ).toBe('一度だけ');
    expect(named(retry.events, 'result')[0]?.data.results?.[0]?.issue_id).toBe('1001');
    expect(store.turnsOf(alice, first.conversationId)).toHaveLength(2);
  });

  it('sends the glossary-expanded inquiry to Retrieve and shows exactly that in kb_query', async () => {
    const { model } = scriptedModel({ kind: 'answer', answer: results('手順です。', ['1001']) });
    const { chat, kb } = harness({ model, config: { queryExpansion: true } });
    const { events } = await chat('プリンターで印刷できない');

    expect(kb.queries).toEqual(['プリンターで印刷できない\nprinter print']);
    expect(named(events, 'kb_query')[0]?.data.query).toBe(kb.queries[0]);
  });

  it('gives up waiting for a first copy that still holds the claim when its own time runs out', async () => {
    const { model, requests } = scriptedModel({ kind: 'hang' });
    let firstRemaining = 60_000;
    const { dependencies } = harness({ model, remainingTimeMs: () => firstRemaining });
    const body = { message: 'プリンター', clientMessageId: 'still-busy-01' };
    const first = await beginChat(alice, body, dependencies);
    const firstStream = streamChat(first, () => undefined, dependencies);

    // The retry's function has 100 ms left beyond its reserve: it waits, then gives up.
    const retryEnd = Date.now() + dependencies.config.remainingTimeReserveMs + 100;
    const retryDependencies = { ...dependencies, remainingTimeMs: () => retryEnd - Date.now() };
    const retry = await beginChat(
      alice,
      { ...body, conversationId: first.conversation.conversationId },
      retryDependencies,
    );
    const retryEvents: ChatEvent[] = [];
    await streamChat(retry, (event) => retryEvents.push(event), retryDependencies);
    firstRemaining = 0;
    await firstStream;

    expect(requests).toHaveLength(1);
    expect(retryEvents.map((event) => event.event)).toEqual(['meta', 'progress', 'error']);
    expect(retryEvents.at(-1)).toEqual({
      event: 'error',
      data: { code: 'answer_in_progress', message: expect.any(String), retryable: true },
    });
  });

  it('ends a max_tokens answer as truncated, keeping what streamed, and closes the inquiry', async () => {
    const { model } = scriptedModel({
      kind: 'answer',
      answer: results('途中まで', ['1001']),
      stopReason: 'max_tokens',
    });
    const { chat, store } = harness({ model });
    const { events, conversationId } = await chat('プリンター');

    expect(named(events, 'result')[0]?.data).toMatchObject({
      status: 'truncated',
      general_advice: '途中まで',
    });
    expect((await store.getConversation(alice, conversationId)).openInquiryId).toBeUndefined();
  });

  it('keeps the advice that streamed when the stream is cut before the stop, as truncated', async () => {
    const { model } = scriptedModel({
      kind: 'raw',
      fragments: ['{"response_type":"results","general_advice":"再起動', 'してください'],
      stop: false,
    });
    const { chat, store } = harness({ model });
    const { events, conversationId } = await chat('プリンター');

    expect(named(events, 'error')).toHaveLength(0);
    expect(named(events, 'result')[0]?.data).toMatchObject({
      status: 'truncated',
      general_advice: '再起動してください',
    });
    expect(store.turnsOf(alice, conversationId).at(-1)).toMatchObject({
      role: 'assistant',
      status: 'truncated',
    });
  });

  it('stops when staff press stop: the partial answer is kept as stopped and the inquiry closes', async () => {
    const { model } = scriptedModel({ kind: 'hang' });
    const { store, dependencies } = harness({ model });
    const begun = await beginChat(alice, { message: 'プリンター' }, dependencies);
    const events: ChatEvent[] = [];
    const streaming = streamChat(begun, (event) => events.push(event), dependencies);
    await store.requestStop(alice, begun.conversation.conversationId);
    await streaming;

    expect(named(events, 'result')[0]?.data).toMatchObject({
      status: 'stopped',
      general_advice: 'thinking',
    });
    expect(store.turnsOf(alice, begun.conversation.conversationId)[1]).toMatchObject({
      status: 'stopped',
    });
    const summary = await store.getConversation(alice, begun.conversation.conversationId);
    expect(summary.openInquiryId).toBeUndefined();
  });

  describe('a failed or stopped answer never merges into the next question', () => {
    const q1 = 'プリンターの設置依頼をしたい';
    const q2 = 'Salesforceにログインできない';
    /** The model request of Q2: retrieval and the current-inquiry section hold Q2 only. */
    const expectQ2Alone = (
      queries: readonly string[],
      request: ChatModelRequest | undefined,
      turn: { kind: string; inquiryId: string },
      q1InquiryId: string,
    ) => {
      expect(queries.at(-1)).toBe(q2);
      expect(turn.kind).toBe('question');
      expect(turn.inquiryId).not.toBe(q1InquiryId);
      expect(request?.messages).toHaveLength(1);
      const text = lastUserText(request);
      const inquirySection = text.slice(text.lastIndexOf(promptLabels.ja.inquiry));
      expect(inquirySection).toBe(`${promptLabels.ja.inquiry}\n${q2}`);
    };

    it('after a failed (throttled) answer, the next message is a new inquiry', async () => {
      const { model, requests } = scriptedModel(
        { kind: 'throw', error: new ChatModelError('throttled', true) },
        { kind: 'answer', answer: results('Salesforceのパスワードをリセット。', ['1002']) },
      );
      const { chat, kb } = harness({ model });
      const first = await chat(q1);
      expect(named(first.events, 'error')[0]?.data.code).toBe('model_throttled');
      const second = await chat(q2, { conversationId: first.conversationId });

      expect(kb.queries).toEqual([q1, q2]);
      expectQ2Alone(kb.queries, requests[1], second.begun.turn, first.begun.turn.inquiryId);
    });

    it('after a stopped answer, the next message is a new inquiry', async () => {
      const { model, requests } = scriptedModel(
        { kind: 'hang' },
        { kind: 'answer', answer: results('Salesforceのパスワードをリセット。', ['1002']) },
      );
      const { chat, store, kb, dependencies } = harness({ model });
      const begun = await beginChat(alice, { message: q1 }, dependencies);
      const streaming = streamChat(begun, () => undefined, dependencies);
      await store.requestStop(alice, begun.conversation.conversationId);
      await streaming;
      // The stop flag stays set for generations that started before it; let time move on.
      await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await chat(q2, { conversationId: begun.conversation.conversationId });

      expect(named(second.events, 'result')[0]?.data.status).toBe('complete');
      expectQ2Alone(kb.queries, requests[1], second.begun.turn, begun.turn.inquiryId);
    });

    it('after a failed reply to a clarification, the next message is a new inquiry', async () => {
      const { model, requests } = scriptedModel(
        { kind: 'answer', answer: clarification },
        { kind: 'throw', error: new ChatModelError('unavailable', true) },
        { kind: 'answer', answer: results('Salesforceのパスワードをリセット。', ['1002']) },
      );
      const { chat, kb } = harness({ model });
      const first = await chat(q1);
      await chat('Salesforce', { conversationId: first.conversationId });
      const third = await chat(q2, { conversationId: first.conversationId });

      expect(kb.queries).toEqual([q1, `${q1}\nSalesforce`, q2]);
      expectQ2Alone(kb.queries, requests[2], third.begun.turn, first.begun.turn.inquiryId);
    });

    it('a new inquiry asked for while a clarification awaits its reply does not merge into it', async () => {
      const { model, requests } = scriptedModel(
        { kind: 'answer', answer: clarification },
        { kind: 'answer', answer: results('Salesforceのパスワードをリセット。', ['1002']) },
      );
      const { chat, kb, store } = harness({ model });
      const first = await chat(q1);
      const second = await chat(q2, { conversationId: first.conversationId, inquiry: 'new' });

      expect(kb.queries).toEqual([q1, q2]);
      expectQ2Alone(kb.queries, requests[1], second.begun.turn, first.begun.turn.inquiryId);
      expect((await store.getConversation(alice, first.conversationId)).openInquiryId).toBe(
        undefined,
      );
    });
  });

  describe('failures end in one error event and a stored failed turn', () => {
    const cases: [string, ModelStep | 'retrieval', { code: string; retryable: boolean }][] = [
      [
        'a throttled model',
        { kind: 'throw', error: new ChatModelError('throttled', true) },
        { code: 'model_throttled', retryable: true },
      ],
      [
        'a rejected request',
        { kind: 'throw', error: new ChatModelError('rejected', false) },
        { code: 'model_rejected', retryable: false },
      ],
      [
        'an unexpected model error',
        { kind: 'throw', error: new Error('boom') },
        { code: 'internal', retryable: true },
      ],
      [
        'a stream that ends without a stop before any advice',
        { kind: 'raw', fragments: ['{"response_type":"resu'], stop: false },
        { code: 'model_stream_failed', retryable: true },
      ],
      [
        'a model that never calls the tool',
        { kind: 'raw', fragments: [] },
        { code: 'empty_model_output', retryable: true },
      ],
      [
        'malformed tool input',
        { kind: 'raw', fragments: ['{"general_advice": nope}'] },
        { code: 'invalid_model_output', retryable: true },
      ],
      ['a failing Knowledge Base', 'retrieval', { code: 'internal', retryable: true }],
    ];
    it.each(cases)('%s', async (_name, step, expected) => {
      const { model, requests } = scriptedModel(
        step === 'retrieval' ? { kind: 'answer', answer: results('x', []) } : step,
      );
      const { chat, store } = harness({
        model,
        retrievalFailure: step === 'retrieval' ? new Error('kb down') : undefined,
      });
      const { events, conversationId } = await chat('プリンター');

      expect(named(events, 'error')).toHaveLength(1);
      expect(named(events, 'error')[0]?.data).toMatchObject(expected);
      expect(named(events, 'result')).toHaveLength(0);
      expect(events.at(-1)?.event).toBe('error');
      expect(store.turnsOf(alice, conversationId).at(-1)).toMatchObject({
        role: 'assistant',
        status: 'failed',
      });
      if (step === 'retrieval') expect(requests).toHaveLength(0);
    });

    it('running out of time is a retryable timeout, not a stop', async () => {
      const { model } = scriptedModel({ kind: 'hang' });
      const { chat } = harness({ model, remainingTimeMs: () => 5_000 });
      const { events } = await chat('プリンター');

      expect(named(events, 'error')[0]?.data).toMatchObject({ code: 'timeout', retryable: true });
    });

    it('an answer that cannot be saved is a save_failed error, never a result', async () => {
      const { model } = scriptedModel({ kind: 'answer', answer: results('a', ['1001']) });
      const { chat, store } = harness({ model });
      store.appendAssistantTurn = async () => {
        throw new Error('table gone');
      };
      const { events } = await chat('プリンター');

      expect(named(events, 'result')).toHaveLength(0);
      expect(named(events, 'error')[0]?.data).toMatchObject({
        code: 'save_failed',
        retryable: true,
      });
    });
  });
});
