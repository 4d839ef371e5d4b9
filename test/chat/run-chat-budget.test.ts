import { describe, expect, it, vi } from 'vitest';
import { admitChat } from '../../functions/chat/chat-route.js';
import {
  ChatModelError,
  DailyBudgetExceededError,
  StoreUnavailableError,
} from '../../functions/chat/errors.js';
import { chatAdmissionBound } from '../../functions/chat/model-request.js';
import type {
  ChatModel,
  ChatModelRequest,
  ConversationStore,
  ModelUsage,
  Retriever,
} from '../../functions/chat/ports.js';
import { streamChat } from '../../functions/chat/run-chat.js';
import {
  type DailyBudget,
  requestBound,
  tokensAtLeast,
  tokensAtMost,
} from '../../functions/model-call/daily-budget.js';
import type { SurgeCheck } from '../../functions/surges/surge-check.js';
import {
  alice,
  aliceCaller,
  countingSurgeCheck,
  harness,
  named,
  results,
  scriptedModel,
} from '../support/chat-core-harness.js';
import { createInMemoryDailyBudget } from '../support/in-memory-daily-budget.js';

// The daily budget in the chat core (ADR 0012): reserve at admission, hold the request's bound
// while the model runs, settle to what it used, give everything back when it never ran.

const day = '2026-03-02';
const clock = () => new Date(`${day}T09:00:00Z`);
const config = { dailyTokenBudget: 1_000_000 };

/** The in-memory budget, recording what each reservation asked for. */
function recordingBudget() {
  const daily = createInMemoryDailyBudget();
  const reserved: number[] = [];
  const budget: DailyBudget = {
    reserve: (owner, on, tokens, limit) => {
      reserved.push(tokens);
      return daily.budget.reserve(owner, on, tokens, limit);
    },
    adjust: daily.budget.adjust,
  };
  return { budget, reserved, committed: () => daily.committed(alice, day) };
}

/** Answers once `whileRunning` passed for its request, then reports `usage`. */
function usageModel(usage: ModelUsage, whileRunning: (request: ChatModelRequest) => Promise<void>) {
  const requests: ChatModelRequest[] = [];
  const model: ChatModel = {
    async *stream(request) {
      requests.push(request);
      await whileRunning(request);
      yield { type: 'tool_input', fragment: JSON.stringify(results('再起動してください', [])) };
      yield { type: 'stop', reason: 'tool_use' };
      yield { type: 'usage', ...usage };
    },
  };
  return { model, requests };
}

describe('the daily budget of a chat', () => {
  it('reserves the admission bound, holds the request’s bound while the model runs, then settles to its usage', async () => {
    const daily = recordingBudget();
    const { model } = usageModel({ inputTokens: 1200, outputTokens: 80 }, (request) =>
      vi.waitFor(() => expect(daily.committed()).toBe(requestBound(request))),
    );
    const { chat, dependencies } = harness({ model, config, budget: daily.budget, now: clock });
    const { events } = await chat('プリンターで印刷できない');

    expect(events.at(-1)?.event).toBe('result');
    expect(daily.reserved).toEqual([
      chatAdmissionBound('プリンターで印刷できない', dependencies.config),
    ]);
    expect(daily.committed()).toBe(1280);
  });

  it('charges a stopped answer what it surely used — not nothing, and not more than its bound', async () => {
    const daily = recordingBudget();
    const { model, requests } = scriptedModel({ kind: 'hang' });
    const { store, dependencies } = harness({ model, config, budget: daily.budget, now: clock });
    const begun = await admitChat(aliceCaller, { message: 'プリンター' }, dependencies);
    const streaming = streamChat(begun, () => undefined, dependencies);
    await vi.waitFor(() => expect(requests).toHaveLength(1));
    await store.requestStop(alice, begun.conversation.conversationId, begun.turn.seq);
    await streaming;

    const request = requests[0] as ChatModelRequest;
    // The model read at least the system prompt; it reported nothing, so the estimate stands.
    expect(daily.committed()).toBeGreaterThan(tokensAtLeast(request.system));
    expect(daily.committed()).toBeLessThan(requestBound(request));
  });

  it('charges an answer the model never reported usage for what it surely used', async () => {
    const daily = recordingBudget();
    // A stream that ends after messageStop without its metadata event: a complete answer.
    const { model, requests } = scriptedModel({ kind: 'answer', answer: results('再起動', []) });
    const { chat } = harness({ model, config, budget: daily.budget, now: clock });
    const { events } = await chat('プリンター');

    expect(events.at(-1)?.event).toBe('result');
    const request = requests[0] as ChatModelRequest;
    expect(daily.committed()).toBeGreaterThan(tokensAtLeast(request.system));
    expect(daily.committed()).toBeLessThan(requestBound(request));
  });

  it('charges an answer cut off by the time budget what it surely used', async () => {
    const daily = recordingBudget();
    const { model, requests } = scriptedModel({ kind: 'hang' });
    const { chat } = harness({
      model,
      config,
      budget: daily.budget,
      now: clock,
      remainingTimeMs: () => 5_000,
    });
    const { events } = await chat('プリンター');

    expect(named(events, 'error')[0]?.data).toMatchObject({ code: 'timeout' });
    const request = requests[0] as ChatModelRequest;
    expect(daily.committed()).toBeGreaterThan(tokensAtLeast(request.system));
    expect(daily.committed()).toBeLessThan(requestBound(request));
  });

  it('gives the reservation back when the model refuses the request before streaming', async () => {
    const daily = recordingBudget();
    const { model, requests } = scriptedModel({
      kind: 'throw',
      error: new ChatModelError('model_throttled', true),
    });
    const { chat } = harness({ model, config, budget: daily.budget, now: clock });
    const { events } = await chat('プリンター');

    expect(named(events, 'error')[0]?.data).toMatchObject({ code: 'model_throttled' });
    expect(requests).toHaveLength(1);
    expect(daily.committed()).toBe(0);
  });

  it('gives the reservation back when retrieval fails before the model is called', async () => {
    const daily = recordingBudget();
    const { model, requests } = scriptedModel();
    const { chat } = harness({
      model,
      config,
      budget: daily.budget,
      now: clock,
      retrievalFailure: new Error('Knowledge Base down'),
    });
    const { events } = await chat('プリンターで印刷できない');

    expect(events.at(-1)?.event).toBe('error');
    expect(requests).toHaveLength(0);
    expect(daily.reserved).toHaveLength(1);
    expect(daily.committed()).toBe(0);
  });

  it('gives the reservation back when the request is refused before the first byte (422)', async () => {
    const daily = recordingBudget();
    const { model } = usageModel({ inputTokens: 100, outputTokens: 10 }, async () => undefined);
    const { chat } = harness({ model, config, budget: daily.budget, now: clock });
    await chat('プリンターで印刷できない', { clientMessageId: 'reused-id-0001' });
    await expect(
      chat('VPNにつながらない', { clientMessageId: 'reused-id-0001' }),
    ).rejects.toMatchObject({ code: 'client_message_id_reused' });

    expect(daily.reserved).toHaveLength(2);
    expect(daily.committed()).toBe(110);
  });

  it('never ends below what the answer used when a write fails after it applied', async () => {
    // A write whose response was lost (a reset connection, a 500): DynamoDB may have applied it.
    const daily = createInMemoryDailyBudget();
    let writes = 0;
    const budget: DailyBudget = {
      reserve: daily.budget.reserve,
      async adjust(owner, on, tokens) {
        await daily.budget.adjust(owner, on, tokens);
        writes += 1;
        if (writes === 1) throw new Error('socket hang up');
      },
    };
    const { model } = usageModel({ inputTokens: 1200, outputTokens: 80 }, async () => undefined);
    const { chat } = harness({ model, config, budget, now: clock });
    const { events } = await chat('プリンターで印刷できない');

    expect(events.at(-1)?.event).toBe('result');
    expect(writes).toBe(2);
    // Too much is allowed (the day is charged the lost write again), never too little.
    expect(daily.committed(alice, day)).toBeGreaterThanOrEqual(1280);
  });

  it('resizes only once the first token is free to leave: the surge count is not queued behind it', async () => {
    const daily = recordingBudget();
    const writes: string[] = [];
    const budget: DailyBudget = {
      ...daily.budget,
      adjust: (owner, on, tokens) => {
        writes.push('resize or settle');
        return daily.budget.adjust(owner, on, tokens);
      },
    };
    let settleCount: () => void = () => undefined;
    const counted = new Promise<void>((resolve) => {
      settleCount = resolve;
    });
    const { model, requests } = usageModel({ inputTokens: 1200, outputTokens: 80 }, async () => {
      // The model is streaming; the count is still out: nothing of the budget's was written.
      await new Promise((resolve) => setTimeout(resolve, 20));
      writes.push('count settled');
      settleCount();
    });
    const surges: SurgeCheck = {
      readKnownIssues: () => ({ matching: async () => [] }),
      countInquiry: () => counted.then(() => undefined),
    };
    const { chat } = harness({ model, config, budget, now: clock, surges });
    const { events } = await chat('VPNに接続できない');

    expect(events.at(-1)?.event).toBe('result');
    expect(requests).toHaveLength(1);
    // The resize after the count, then the settlement.
    expect(writes).toEqual(['count settled', 'resize or settle', 'resize or settle']);
    expect(daily.committed()).toBe(1280);
  });

  it('settles on the day it reserved, even when the answer ends after midnight', async () => {
    const daily = createInMemoryDailyBudget();
    let now = new Date('2026-03-02T23:59:59Z');
    const { model } = usageModel({ inputTokens: 100, outputTokens: 10 }, async () => {
      now = new Date('2026-03-03T00:00:01Z');
    });
    const { chat } = harness({ model, config, budget: daily.budget, now: () => now });
    await chat('プリンターで印刷できない');

    expect(daily.committed(alice, '2026-03-02')).toBe(110);
    expect(daily.committed(alice, '2026-03-03')).toBe(0);
  });
});

describe('the token estimates', () => {
  it('count high by UTF-8 bytes, never below the low estimate', () => {
    for (const text of ['VPN', 'プリンターで印刷できない', '😀 emoji', '']) {
      expect(tokensAtMost(text)).toBe(Buffer.byteLength(text, 'utf8'));
      expect(tokensAtMost(text)).toBeGreaterThanOrEqual(tokensAtLeast(text));
    }
  });
});

describe('what runs beside the budget at admission', () => {
  /** A retriever whose search waits until released, noting the signal it was given. */
  function heldRetriever() {
    const signals: AbortSignal[] = [];
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const retriever: Retriever = {
      async search(_query, options) {
        if (options.signal) signals.push(options.signal);
        await released;
        return [];
      },
      fetchByIssueIds: async () => [],
    };
    return { retriever, signals, release };
  }

  it('starts a new conversation’s retrieval before the budget has decided', async () => {
    const held = heldRetriever();
    let searchedBeforeDecision = false;
    const daily = createInMemoryDailyBudget();
    const budget: DailyBudget = {
      reserve: async (...args) => {
        const decided = await daily.budget.reserve(...args);
        searchedBeforeDecision = held.signals.length === 1;
        return decided;
      },
      adjust: daily.budget.adjust,
    };
    const { model } = scriptedModel({ kind: 'hang' });
    const { dependencies } = harness({ model, config, budget, now: clock });
    const admitted = await admitChat(
      aliceCaller,
      { message: 'プリンター' },
      {
        ...dependencies,
        retriever: held.retriever,
      },
    );

    expect(searchedBeforeDecision).toBe(true);
    expect(admitted.earlySearch).toBeDefined();
    held.release();
    await admitted.call.settle();
  });

  it('aborts that retrieval when the chat is refused over the budget, and writes nothing', async () => {
    const held = heldRetriever();
    const daily = createInMemoryDailyBudget();
    const { model } = scriptedModel({ kind: 'hang' });
    // A refused chat is no inquiry of a surge: nothing counts it (ADR 0035).
    const { surges, counted } = countingSurgeCheck();
    const { store, dependencies } = harness({
      model,
      config: { dailyTokenBudget: 1 },
      budget: daily.budget,
      now: clock,
      surges,
    });
    // Someone used the day's budget already.
    await daily.budget.adjust(alice, day, 1);
    await expect(
      admitChat(
        aliceCaller,
        { message: 'プリンター' },
        { ...dependencies, retriever: held.retriever },
      ),
    ).rejects.toBeInstanceOf(DailyBudgetExceededError);

    expect(held.signals).toHaveLength(1);
    expect(held.signals[0]?.aborted).toBe(true);
    expect((await store.listConversations(alice)).items).toEqual([]);
    expect(counted).toEqual([]);
    held.release();
  });
  /** A budget that decides each reservation only once `decide` resolves (then as the in-memory one). */
  function budgetDecidingWhen(decide: () => Promise<void>) {
    const daily = createInMemoryDailyBudget();
    const budget: DailyBudget = {
      reserve: async (...args) => {
        await decide();
        return daily.budget.reserve(...args);
      },
      adjust: daily.budget.adjust,
    };
    return { daily, budget };
  }

  it('commits a new conversation’s user turn while the budget is still deciding', async () => {
    let committedBeforeDecision = false;
    const { model } = scriptedModel({ kind: 'hang' });
    const { budget } = budgetDecidingWhen(async () => {
      await vi.waitFor(async () =>
        expect((await store.listConversations(alice)).items).toHaveLength(1),
      );
      committedBeforeDecision = true;
    });
    const { store, dependencies } = harness({ model, config, budget, now: clock });
    const admitted = await admitChat(aliceCaller, { message: 'プリンター' }, dependencies);

    expect(committedBeforeDecision).toBe(true);
    expect(admitted.turn.seq).toBe(1);
    await admitted.call.settle();
  });

  it('withdraws the conversation when the budget refuses after its commit landed: no half-written turn, and a retry starts afresh', async () => {
    const held = heldRetriever();
    let commitLanded = false;
    const { daily, budget } = budgetDecidingWhen(async () => {
      await vi.waitFor(async () =>
        expect((await store.listConversations(alice)).items).toHaveLength(1),
      );
      commitLanded = true;
    });
    // Someone used the day's budget already.
    await daily.budget.adjust(alice, day, 1);
    const { model } = scriptedModel({ kind: 'hang' });
    const { store, dependencies } = harness({
      model,
      config: { dailyTokenBudget: 1 },
      budget,
      now: clock,
    });
    const request = { message: 'プリンター', clientMessageId: 'refused-0001' };
    await expect(
      admitChat(aliceCaller, request, { ...dependencies, retriever: held.retriever }),
    ).rejects.toBeInstanceOf(DailyBudgetExceededError);

    expect(commitLanded).toBe(true);
    expect((await store.listConversations(alice)).items).toEqual([]);
    expect(held.signals[0]?.aborted).toBe(true);
    expect(daily.committed(alice, day)).toBe(1);
    // The message's idempotency marker went with its turn: the same request, once the budget
    // allows it, is a new message, not a duplicate of a turn that no longer exists.
    await daily.budget.adjust(alice, day, -1);
    const admitted = await admitChat(aliceCaller, request, {
      ...dependencies,
      config: { ...dependencies.config, dailyTokenBudget: 1_000 },
    });
    expect(admitted.duplicate).toBe(false);
    expect(admitted.turn.seq).toBe(1);
    expect((await store.listConversations(alice)).items).toHaveLength(1);
    held.release();
    await admitted.call.settle();
  });

  it('gives the reservation back and aborts the search when the commit fails after the search started', async () => {
    const held = heldRetriever();
    const daily = recordingBudget();
    const { model } = scriptedModel({ kind: 'hang' });
    const { store, dependencies } = harness({ model, config, budget: daily.budget, now: clock });
    const unavailable = new StoreUnavailableError();
    const failingStore: ConversationStore = {
      ...store,
      async appendUserTurn() {
        await vi.waitFor(() => expect(held.signals).toHaveLength(1));
        throw unavailable;
      },
    };
    await expect(
      admitChat(
        aliceCaller,
        { message: 'プリンター' },
        { ...dependencies, store: failingStore, retriever: held.retriever },
      ),
    ).rejects.toBe(unavailable);

    expect(held.signals[0]?.aborted).toBe(true);
    expect(daily.reserved).toHaveLength(1);
    expect(daily.committed()).toBe(0);
    held.release();
  });

  it('commits a follow-up only once the budget admitted it: refused, the conversation is untouched', async () => {
    const daily = recordingBudget();
    const { model } = usageModel({ inputTokens: 100, outputTokens: 10 }, async () => undefined);
    const { store, chat, dependencies } = harness({
      model,
      config: { dailyTokenBudget: 150 },
      budget: daily.budget,
      now: clock,
    });
    const first = await chat('プリンターで印刷できない');
    const conversationId = first.conversationId;
    const before = await store.loadConversation(alice, conversationId);
    // The first answer's 110 tokens leave room; this one takes the rest.
    await daily.budget.adjust(alice, day, 40);
    let appended = 0;
    const countingStore: ConversationStore = {
      ...store,
      appendUserTurn: (...args) => {
        appended += 1;
        return store.appendUserTurn(...args);
      },
    };
    await expect(
      admitChat(
        aliceCaller,
        { message: 'まだ印刷できない', conversationId },
        { ...dependencies, store: countingStore },
      ),
    ).rejects.toBeInstanceOf(DailyBudgetExceededError);

    expect(appended).toBe(0);
    expect(await store.loadConversation(alice, conversationId)).toEqual(before);
  });
});
