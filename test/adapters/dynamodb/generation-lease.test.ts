import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerInProgressError } from '../../../functions/chat/errors.js';
import { createTestTables, type TestTables } from '../../support/dynamodb-test-tables.js';
import { alice, createStore } from './store-fixture.js';

/**
 * The generation lease (issue #24, items 5 and 7) against DynamoDB Local: the `answering` mark
 * and the marker's claim move on with the holder's heartbeat, outside versioned commits, and
 * nothing decided on a cached row lets a regenerate past a renewed lease.
 */
describe('the generation lease', () => {
  let t: TestTables;
  beforeAll(async () => {
    t = await createTestTables('lease');
  });
  afterAll(() => t.dispose());

  /** A clock the test moves by hand: lease expiry without waiting. */
  function clock(start = Date.now()) {
    let time = start;
    return { now: () => new Date(time), advance: (ms: number) => (time += ms) };
  }
  const later = (now: Date, ms: number) => new Date(now.getTime() + ms);

  it('is renewed by its holder only: a retry cannot take it over while it is renewed', async () => {
    const time = clock();
    const store = createStore(t, { now: time.now });
    const { conversation, turn } = await store.appendUserTurn(alice, {
      text: 'printer',
      clientMessageId: 'lease-renewed-01',
      generation: { holder: 'first', until: later(time.now(), 30_000) },
    });
    const { conversationId } = conversation;
    const renewal = { conversationId, userSeq: turn.seq, clientMessageId: 'lease-renewed-01' };
    time.advance(20_000);
    expect(
      await store.renewGeneration(alice, {
        ...renewal,
        holder: 'first',
        until: later(time.now(), 30_000),
      }),
    ).toBe(true);
    // Past the first lease, within the renewed one.
    time.advance(20_000);
    const retry = { holder: 'retry', until: later(time.now(), 30_000) };
    expect(await store.claimGeneration(alice, 'lease-renewed-01', retry)).toBe(false);
    expect(
      Date.parse((await store.getConversation(alice, conversationId)).answering?.until ?? ''),
    ).toBe(time.now().getTime() + 10_000);
    // Someone else's heartbeat moves nothing.
    expect(
      await store.renewGeneration(alice, {
        ...renewal,
        holder: 'impostor',
        until: later(time.now(), 60_000),
      }),
    ).toBe(false);

    // The holder stops renewing (it crashed): once its lease lapsed a retry takes over.
    time.advance(10_001);
    expect(await store.claimGeneration(alice, 'lease-renewed-01', retry)).toBe(true);
    expect(
      await store.renewGeneration(alice, {
        ...renewal,
        holder: 'first',
        until: later(time.now(), 30_000),
      }),
    ).toBe(false);
  });

  it('marks a turn answered without a clientMessageId, and the answer to it clears the mark for good', async () => {
    const time = clock();
    const store = createStore(t, { now: time.now });
    const { conversation, turn } = await store.appendUserTurn(alice, {
      text: 'VPN',
      generation: { holder: 'bare', until: later(time.now(), 30_000) },
    });
    const { conversationId } = conversation;
    expect(conversation.answering).toMatchObject({ seq: turn.seq });
    await store.appendAssistantTurn(alice, {
      conversationId,
      inquiryId: turn.inquiryId,
      answersSeq: turn.seq,
      kind: 'answer',
      text: 'done',
      status: 'complete',
    });
    // A heartbeat that was on its way when the answer landed does not bring the mark back.
    expect(
      await store.renewGeneration(alice, {
        conversationId,
        userSeq: turn.seq,
        holder: 'bare',
        until: later(time.now(), 30_000),
      }),
    ).toBe(false);
    expect((await store.getConversation(alice, conversationId)).answering).toBeUndefined();
  });

  it('is not cleared by the late answer to an older message', async () => {
    const store = createStore(t);
    const first = await store.appendUserTurn(alice, {
      text: 'Teams',
      generation: { holder: 'one', until: new Date(Date.now() + 30_000) },
    });
    const { conversationId } = first.conversation;
    const second = await store.appendUserTurn(alice, {
      conversationId,
      text: 'Outlook',
      generation: { holder: 'two', until: new Date(Date.now() + 30_000) },
    });
    await store.appendAssistantTurn(alice, {
      conversationId,
      inquiryId: first.turn.inquiryId,
      answersSeq: first.turn.seq,
      kind: 'answer',
      text: 'late',
      status: 'complete',
    });
    expect((await store.getConversation(alice, conversationId)).answering).toMatchObject({
      seq: second.turn.seq,
    });
  });

  // A renewal moves `answering.until` without a version bump, so a container's cached row can
  // show the lease as lapsed while it is not.
  it('refuses a regenerate decided on a cached row whose lease looks lapsed but was renewed', async () => {
    const time = clock();
    const stale = createStore(t, { now: time.now });
    const holder = createStore(t, { now: time.now });
    const { conversation, turn } = await stale.appendUserTurn(alice, {
      text: 'printer',
      generation: { holder: 'h', until: later(time.now(), 30_000) },
    });
    const { conversationId } = conversation;
    time.advance(20_000);
    await holder.renewGeneration(alice, {
      conversationId,
      userSeq: turn.seq,
      holder: 'h',
      until: later(time.now(), 30_000),
    });
    time.advance(20_000);
    await expect(
      stale.appendUserTurn(alice, { conversationId, text: 'printer', supersedes: turn.seq }),
    ).rejects.toBeInstanceOf(AnswerInProgressError);
    expect((await holder.loadConversation(alice, conversationId)).turns).toHaveLength(1);

    // Once the renewed lease lapsed too, the regenerate goes through.
    time.advance(10_001);
    const regenerated = await stale.appendUserTurn(alice, {
      conversationId,
      text: 'printer',
      supersedes: turn.seq,
    });
    expect(regenerated.turn.supersedes).toBe(turn.seq);
  });

  it('keeps a renewed lease when an unrelated commit lands on a cached row', async () => {
    const time = clock();
    const store = createStore(t, { now: time.now });
    const { conversation, turn } = await store.appendUserTurn(alice, {
      text: 'Box',
      generation: { holder: 'h', until: later(time.now(), 30_000) },
    });
    const { conversationId } = conversation;
    const renewedUntil = later(time.now(), 90_000);
    await createStore(t, { now: time.now }).renewGeneration(alice, {
      conversationId,
      userSeq: turn.seq,
      holder: 'h',
      until: renewedUntil,
    });
    // `store` still caches the row with the first `until`; a rename commits on it.
    await store.renameConversation(alice, conversationId, 'Box sharing');
    await store.appendAssistantTurn(alice, {
      conversationId,
      inquiryId: 'another-inquiry',
      answersSeq: 99,
      kind: 'answer',
      text: 'other',
      status: 'complete',
    });
    expect((await store.getConversation(alice, conversationId)).answering?.until).toBe(
      renewedUntil.toISOString(),
    );
  });
});
