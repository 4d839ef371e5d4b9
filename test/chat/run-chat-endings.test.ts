import { describe, expect, it } from 'vitest';
import { admitChat } from '../../functions/chat/chat-route.js';
import { ChatModelError } from '../../functions/chat/errors.js';
import type { ChatModelRequest } from '../../functions/chat/ports.js';
import { inquiryElement } from '../../functions/chat/prompt-text.js';
import { streamChat } from '../../functions/chat/run-chat.js';
import type { StreamEvent } from '../../functions/contract/chat-events.js';
import { renderPromptMarkup } from '../../functions/contract/prompt-markup.js';
import {
  alice,
  aliceCaller,
  clarification,
  harness,
  lastUserText,
  type ModelStep,
  named,
  results,
  scriptedModel,
} from '../support/chat-core-harness.js';

/**
 * How a chat ends when it does not simply complete: a retry waiting for the copy still answering,
 * truncation, stop, every failure, and what the next question sees after a failed or stopped
 * answer. Same in-memory ports as run-chat.test.ts.
 */

describe('streamChat endings', () => {
  it('gives up waiting for a first copy that still holds the claim when its own time runs out', async () => {
    const { model, requests } = scriptedModel({ kind: 'hang' });
    let firstRemaining = 60_000;
    const { dependencies } = harness({ model, remainingTimeMs: () => firstRemaining });
    const body = { message: 'プリンター', clientMessageId: 'still-busy-01' };
    const first = await admitChat(aliceCaller, body, dependencies);
    const firstStream = streamChat(first, () => undefined, dependencies);

    // The retry's function has 100 ms left beyond its reserve: it waits, then gives up.
    const retryEnd = Date.now() + dependencies.config.remainingTimeReserveMs + 100;
    const retryDependencies = { ...dependencies, remainingTimeMs: () => retryEnd - Date.now() };
    const retry = await admitChat(
      aliceCaller,
      { ...body, conversationId: first.conversation.conversationId },
      retryDependencies,
    );
    const retryEvents: StreamEvent[] = [];
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
    const begun = await admitChat(aliceCaller, { message: 'プリンター' }, dependencies);
    const events: StreamEvent[] = [];
    const streaming = streamChat(begun, (event) => events.push(event), dependencies);
    await store.requestStop(alice, begun.conversation.conversationId, begun.turn.seq);
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
      const inquirySection = text.slice(text.lastIndexOf('<inquiry>'));
      expect(inquirySection).toBe(renderPromptMarkup([inquiryElement(q2)]));
    };

    it('after a failed (throttled) answer, the next message is a new inquiry', async () => {
      const { model, requests } = scriptedModel(
        { kind: 'throw', error: new ChatModelError('model_throttled', true) },
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
      const begun = await admitChat(aliceCaller, { message: q1 }, dependencies);
      const streaming = streamChat(begun, () => undefined, dependencies);
      await store.requestStop(alice, begun.conversation.conversationId, begun.turn.seq);
      await streaming;
      const second = await chat(q2, { conversationId: begun.conversation.conversationId });

      expect(named(second.events, 'result')[0]?.data.status).toBe('complete');
      expectQ2Alone(kb.queries, requests[1], second.begun.turn, begun.turn.inquiryId);
    });

    it('after a failed reply to a clarification, the next message is a new inquiry', async () => {
      const { model, requests } = scriptedModel(
        { kind: 'answer', answer: clarification },
        { kind: 'throw', error: new ChatModelError('model_unavailable', true) },
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
        { kind: 'throw', error: new ChatModelError('model_throttled', true) },
        { code: 'model_throttled', retryable: true },
      ],
      [
        'a rejected request',
        { kind: 'throw', error: new ChatModelError('model_rejected', false) },
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
