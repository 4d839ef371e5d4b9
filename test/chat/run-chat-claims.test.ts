import { describe, expect, it } from 'vitest';
import { admitChat } from '../../functions/chat/chat-route.js';
import { AnswerInProgressError } from '../../functions/chat/errors.js';
import type { ChatModel, ChatModelEvent } from '../../functions/chat/ports.js';
import { streamChat } from '../../functions/chat/run-chat.js';
import type { StreamEvent } from '../../functions/contract/chat-events.js';
import {
  alice,
  aliceCaller,
  harness,
  named,
  results,
  scriptedModel,
} from '../support/chat-core-harness.js';
import { splitIntoFragments } from '../support/split-into-fragments.js';

/**
 * Who is answering which message (issue #24, items 5–7), in the core with the in-memory store:
 * every answer in flight marks its conversation, a stop names the answer it stops, and the
 * generation claim is a lease renewed while the answer is written.
 */

/** A model whose answers wait for `release()` after their first fragment; counts its calls. */
function gatedModel(advice: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let calls = 0;
  let startedStreaming!: () => void;
  const streaming = new Promise<void>((resolve) => {
    startedStreaming = resolve;
  });
  const model: ChatModel = {
    async *stream(request): AsyncIterable<ChatModelEvent> {
      calls++;
      const [first, ...rest] = splitIntoFragments(JSON.stringify(results(advice, [])), [8]);
      yield { type: 'tool_input', fragment: first ?? '' };
      startedStreaming();
      await Promise.race([
        released,
        new Promise((resolve) => request.signal?.addEventListener('abort', resolve)),
      ]);
      for (const fragment of rest) yield { type: 'tool_input', fragment };
      yield { type: 'stop', reason: 'tool_use' };
    },
  };
  return { model, release, streaming, calls: () => calls };
}

/** Resolves once `condition` holds, checking on every turn of the event loop. */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe('an answer in flight marks its conversation, whoever sent it', () => {
  // Before: only a message with a clientMessageId set `answering`; a regenerate sent meanwhile
  // was accepted and the late answer counted as the new version's.
  it('refuses a regenerate while the answer to a message without clientMessageId is written', async () => {
    const gated = gatedModel('再起動してください。');
    const { store, dependencies } = harness({ model: gated.model });
    const begun = await admitChat(aliceCaller, { message: 'プリンター' }, dependencies);
    const conversationId = begun.conversation.conversationId;
    const streaming = streamChat(begun, () => undefined, dependencies);
    await gated.streaming;

    expect((await store.getConversation(alice, conversationId)).answering?.seq).toBe(1);
    await expect(
      admitChat(
        aliceCaller,
        { conversationId, message: 'プリンター', supersedes: begun.turn.seq },
        dependencies,
      ),
    ).rejects.toBeInstanceOf(AnswerInProgressError);

    gated.release();
    await streaming;
    expect((await store.getConversation(alice, conversationId)).answering).toBeUndefined();
    expect(store.turnsOf(alice, conversationId).map((turn) => turn.supersedes)).toEqual([
      undefined,
      undefined,
    ]);
  });
});

describe('a stop names the answer it stops', () => {
  // That the answer a stop names does stop is 'stops when staff press stop' in
  // run-chat-endings.test.ts; here, that no other answer does.
  // Before: a stop was a time on the conversation, and any generation that started before it was
  // stopped — also the next message's, when the stop for the previous answer landed late.
  it('never stops a later answer, even when it arrives after that answer started', async () => {
    const gated = gatedModel('Salesforceのパスワードをリセットしてください。');
    const { model: quick } = scriptedModel({ kind: 'answer', answer: results('最初の回答', []) });
    const { store, dependencies } = harness({ model: quick });
    const first = await admitChat(aliceCaller, { message: 'プリンター' }, dependencies);
    await streamChat(first, () => undefined, dependencies);
    const conversationId = first.conversation.conversationId;

    let polls = 0;
    const isStopRequested = store.isStopRequested.bind(store);
    store.isStopRequested = async (...poll) => {
      const requested = await isStopRequested(...poll);
      polls++;
      return requested;
    };
    const laterDependencies = { ...dependencies, model: gated.model };
    const later = await admitChat(
      aliceCaller,
      { conversationId, message: 'Salesforce' },
      laterDependencies,
    );
    const events: StreamEvent[] = [];
    const streaming = streamChat(later, (event) => events.push(event), laterDependencies);
    await gated.streaming;
    // The stop for the first answer lands while the later one streams.
    await store.requestStop(alice, conversationId, first.turn.seq);
    // The later answer's stop poller looks at least twice after that stop (or it stopped).
    const pollsBefore = polls;
    await until(() => polls >= pollsBefore + 2 || named(events, 'result').length > 0);
    gated.release();
    await streaming;

    expect(named(events, 'result')[0]?.data.status).toBe('complete');
  });
});

describe('the generation claim is a lease', () => {
  const lease = { generationLeaseMs: 60, stopPollMs: 5 };

  // Before: the claim lasted the function's whole remaining time, and a retry after a crash
  // waited on it until its own time ran out (`answer_in_progress`).
  it('passes to a retry once a crashed holder stopped renewing it', async () => {
    const { model, requests } = scriptedModel({
      kind: 'answer',
      answer: results('ドライバーを入れ直してください。', []),
    });
    // The retry has about a second to wait before it gives up with answer_in_progress.
    const deadline = Date.now() + 21_000;
    const { dependencies } = harness({
      model,
      config: lease,
      remainingTimeMs: () => deadline - Date.now(),
    });
    const message = { message: 'プリンター', clientMessageId: 'crashed-0001' };
    // The first copy stored its message and claimed the answer, then died: no stream, no release.
    const crashed = await admitChat(aliceCaller, message, dependencies);

    const retry = await admitChat(
      aliceCaller,
      { ...message, conversationId: crashed.conversation.conversationId },
      dependencies,
    );
    expect(retry.duplicate).toBe(true);
    const events: StreamEvent[] = [];
    await streamChat(retry, (event) => events.push(event), dependencies);

    expect(named(events, 'error')).toEqual([]);
    expect(named(events, 'result')[0]?.data).toMatchObject({ status: 'complete' });
    expect(requests).toHaveLength(1);
  });

  it('stays with a holder that keeps renewing it, beyond one lease period', async () => {
    const gated = gatedModel('ドライバーを入れ直してください。');
    const { store, dependencies } = harness({ model: gated.model, config: lease });
    const renewals: number[] = [];
    const renew = store.renewGeneration.bind(store);
    store.renewGeneration = async (owner, renewal) => {
      renewals.push(renewal.until.getTime());
      return renew(owner, renewal);
    };
    const message = { message: 'プリンター', clientMessageId: 'renewing-0001' };
    const first = await admitChat(aliceCaller, message, dependencies);
    const conversationId = first.conversation.conversationId;
    const firstEvents: StreamEvent[] = [];
    const answering = streamChat(first, (event) => firstEvents.push(event), dependencies);
    await gated.streaming;

    const retry = await admitChat(aliceCaller, { ...message, conversationId }, dependencies);
    const retryEvents: StreamEvent[] = [];
    const waiting = streamChat(retry, (event) => retryEvents.push(event), dependencies);
    // Three lease periods pass while the first copy renews; the retry must still be waiting.
    const claimedUntil = first.generation?.until.getTime() ?? 0;
    await until(() => renewals.some((time) => time > claimedUntil + 3 * lease.generationLeaseMs));
    expect(named(retryEvents, 'result')).toEqual([]);
    gated.release();
    await Promise.all([answering, waiting]);

    expect(gated.calls()).toBe(1);
    expect(named(firstEvents, 'result')[0]?.data.status).toBe('complete');
    expect(named(retryEvents, 'result')[0]?.data).toMatchObject({
      status: 'complete',
      general_advice: 'ドライバーを入れ直してください。',
    });
    expect(store.turnsOf(alice, conversationId).map((turn) => turn.role)).toEqual([
      'user',
      'assistant',
    ]);
  });
});
