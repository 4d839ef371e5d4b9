import { describe, expect, it } from 'vitest';
import { admitChat } from '../../functions/chat/chat-route.js';
import type { ChatModel, ChatReport } from '../../functions/chat/ports.js';
import { streamChat } from '../../functions/chat/run-chat.js';
import type { StreamEvent } from '../../functions/contract/chat-events.js';
import type { SurgeCheck } from '../../functions/surges/surge-check.js';
import { readPromptMessage } from '../../local/bedrock/offline-responder/read-offline-prompt.js';
import {
  alice,
  aliceCaller,
  clarification,
  countingSurgeCheck,
  harness,
  lastUserText,
  named,
  results,
  scriptedModel,
} from '../support/chat-core-harness.js';

/**
 * The chat pipeline with in-memory ports: no Java, no HTTP, no emulator. What is checked here is
 * the core's own behaviour — context assembly, grounding, clarification, every failure path; the
 * same pipeline over DynamoDB Local and the local Bedrock endpoint is covered in test/api.
 */

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

  it('reports how many links of the answer are outside the allow-list, as a count', async () => {
    const { model } = scriptedModel({
      kind: 'answer',
      answer: results('See http://evil.example/reset or https://support.microsoft.com', ['1001'], {
        mail_draft: 'Reset at http://evil.example/reset, or ask phish@evil.example.',
        todo_actions: ['Open https://other.example'],
      }),
    });
    const reports: ChatReport[] = [];
    const { chat } = harness({
      model,
      config: { allowedLinkDomains: ['microsoft.com'] },
      telemetry: { chatFinished: (report) => reports.push(report) },
    });
    const { events } = await chat('パスワードをリセットしたい');
    expect(named(events, 'result')[0]?.data.unverified_links).toEqual([
      'http://evil.example/reset',
      'phish@evil.example',
      'https://other.example',
    ]);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.unverifiedLinks).toBe(3);
  });

  it("reports each cited card's subject as the Knowledge Base holds it, not as the model wrote it", async () => {
    // The cards' subjects are the model's (`subject 1002`); the tickets' are the Knowledge Base's.
    const { model } = scriptedModel({ kind: 'answer', answer: results('a', ['#1002', '1001']) });
    const reports: ChatReport[] = [];
    const { chat } = harness({
      model,
      telemetry: { chatFinished: (report) => reports.push(report) },
    });
    await chat('VPNとプリンター');
    expect(reports[0]?.citedIssueIds).toEqual(['1002', '1001']);
    expect(reports[0]?.citedSubjects).toEqual({
      '1002': 'VPNに接続できない',
      '1001': 'プリンターの設置',
    });
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
      // INC-1001 is a Jira key (ADR 0020), not ticket 1001: dropped like 9999.
      answer: results('a', ['9999', '#1002', 'INC-1001', 'チケット１００１']),
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
    const sections = readPromptMessage(text);
    expect(sections.archive?.map((entry) => entry.question)).toEqual(['プリンターを設置したい']);
    expect(sections.inquiry).toBe('VPNに接続できない');
    expect(text.endsWith('<inquiry>\nVPNに接続できない\n</inquiry>')).toBe(true);
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

    // A bare number is the app's ticket or Zendesk's (ADR 0020): both are asked for.
    expect(kb.fetched).toEqual([['1002', 'ZD#1002']]);
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
});

describe('streamChat with the surge check (ADR 0033, 0034)', () => {
  const notice = { topic: 'vpn', inquiries: 4, staff: 3, since: '2026-12-07T09:00:00.000Z' };
  const knownIssue = {
    id: 'k1',
    title: 'VPN outage',
    note: 'Use the office network.',
    author: 'lead',
    at: '2026-12-07T08:00:00.000Z',
  };

  it('calls the model while the surge count is in flight, yet sends the notice before the first token', async () => {
    const scripted = scriptedModel({
      kind: 'answer',
      answer: results('再接続してください。', ['1002']),
    });
    let modelCalled: () => void = () => undefined;
    const called = new Promise<void>((resolve) => {
      modelCalled = resolve;
    });
    const model: ChatModel = {
      stream(request) {
        modelCalled();
        return scripted.model.stream(request);
      },
    };
    let countedWhile: 'the model was called' | 'the model was not called yet' | undefined;
    const surges: SurgeCheck = {
      readKnownIssues: () => ({ matching: async () => [knownIssue] }),
      countInquiry: () =>
        // Settles once the model is called; never, if the model waited for the count.
        Promise.race([
          called.then(() => {
            countedWhile = 'the model was called';
          }),
          new Promise<void>((resolve) => setTimeout(resolve, 1_000)).then(() => {
            countedWhile ??= 'the model was not called yet';
          }),
        ]).then(() => notice),
    };
    const { chat } = harness({ model, surges });
    const { events } = await chat('VPNに接続できない');

    expect(countedWhile).toBe('the model was called');
    const order = events.map((event) =>
      event.event === 'progress' ? `progress:${event.data.step}` : event.event,
    );
    // The stream reads as before: the notices, then generating, then the answer.
    expect(order.slice(order.indexOf('progress:fetching'), order.indexOf('token') + 1)).toEqual([
      'progress:fetching',
      'surge',
      'known_issue',
      'progress:generating',
      'token',
    ]);
    expect(named(events, 'surge')[0]?.data).toEqual(notice);
    expect(named(events, 'result')[0]?.data.status).toBe('complete');
    // The known issue still reached the model's request.
    expect(lastUserText(scripted.requests[0])).toContain('VPN outage');
  });

  it('starts reading the known issues at admission, before anything is streamed', async () => {
    const { model } = scriptedModel({ kind: 'answer', answer: results('a', ['1002']) });
    const reads: string[] = [];
    const surges: SurgeCheck = {
      readKnownIssues: (owner) => {
        reads.push(owner.userId);
        return { matching: async () => [] };
      },
      countInquiry: async () => undefined,
    };
    const { dependencies } = harness({ model, surges });
    const admitted = await admitChat(aliceCaller, { message: 'VPNに接続できない' }, dependencies);
    expect(reads).toEqual(['alice']);
    const events: StreamEvent[] = [];
    await streamChat(admitted, (event) => events.push(event), dependencies);
    expect(reads).toEqual(['alice']);
    expect(named(events, 'known_issue')).toEqual([]);
  });

  it("counts a new conversation's first message at admission, a follow-up in the stream, each once (ADR 0035)", async () => {
    const { model } = scriptedModel(
      { kind: 'answer', answer: results('a', ['1002']) },
      { kind: 'answer', answer: results('b', ['1002']) },
    );
    const { surges, counted } = countingSurgeCheck(notice);
    const { dependencies } = harness({ model, surges });
    const first = await admitChat(aliceCaller, { message: 'VPNに接続できない' }, dependencies);
    // Before anything is streamed: the stream's meta, its model call and the count's request
    // no longer leave one after the other.
    expect(counted).toEqual([{ text: 'VPNに接続できない', inquiryId: first.turn.inquiryId }]);
    const firstEvents: StreamEvent[] = [];
    await streamChat(first, (event) => firstEvents.push(event), dependencies);
    expect(counted).toHaveLength(1);
    expect(named(firstEvents, 'surge')[0]?.data).toEqual(notice);

    const followUp = await admitChat(
      aliceCaller,
      {
        message: 'Outlookも開かない',
        conversationId: first.conversation.conversationId,
        inquiry: 'new',
      },
      dependencies,
    );
    expect(counted).toHaveLength(1);
    const followUpEvents: StreamEvent[] = [];
    await streamChat(followUp, (event) => followUpEvents.push(event), dependencies);
    expect(counted).toEqual([
      { text: 'VPNに接続できない', inquiryId: first.turn.inquiryId },
      { text: 'Outlookも開かない', inquiryId: followUp.turn.inquiryId },
    ]);
    expect(named(followUpEvents, 'surge')[0]?.data).toEqual(notice);
  });

  it('does not count a retried message again: its copy replays the answer', async () => {
    const { model } = scriptedModel({ kind: 'answer', answer: results('a', ['1002']) });
    const { surges, counted } = countingSurgeCheck(notice);
    const { dependencies } = harness({ model, surges });
    const message = { message: 'VPNに接続できない', clientMessageId: 'retried-0001' };
    const first = await admitChat(aliceCaller, message, dependencies);
    await streamChat(first, () => undefined, dependencies);
    const retry = await admitChat(aliceCaller, message, dependencies);
    expect(retry.duplicate).toBe(true);
    const replayed: StreamEvent[] = [];
    await streamChat(retry, (event) => replayed.push(event), dependencies);
    expect(named(replayed, 'result')).toHaveLength(1);
    expect(counted.map((inquiry) => inquiry.inquiryId)).toEqual([first.turn.inquiryId]);
  });
});
