import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTables, type TestTables } from '../../support/dynamodb-test-tables.js';
import { alice, bob, createStore } from './store-fixture.js';

describe('clientMessageId idempotency', () => {
  let t: TestTables;
  beforeAll(async () => {
    t = await createTestTables('idempotency');
  });
  afterAll(() => t.dispose());

  it('stores one turn when the same message is sent 5 times concurrently', async () => {
    const store = createStore(t);
    const { conversation } = await store.appendUserTurn(alice, { text: 'hello' });
    const { conversationId } = conversation;
    const sends = await Promise.all(
      Array.from({ length: 5 }, () =>
        // Five containers, as five retried POSTs could land on.
        createStore(t).appendUserTurn(alice, {
          conversationId,
          text: 'VPNに繋がらない',
          clientMessageId: 'msg-concurrent',
        }),
      ),
    );
    expect(new Set(sends.map((send) => send.turn.seq))).toEqual(new Set([2]));
    expect(sends.filter((send) => send.duplicate).length).toBeGreaterThanOrEqual(4);
    const { turns, conversation: after } = await store.loadConversation(alice, conversationId);
    expect(turns.map((turn) => turn.text)).toEqual(['hello', 'VPNに繋がらない']);
    expect(turns[1]?.clientMessageId).toBe('msg-concurrent');
    expect(after.version).toBe(2);
  });

  it('still stores one turn when the retry comes after the 10-minute token window', async () => {
    const store = createStore(t);
    const first = await store.appendUserTurn(alice, { text: 'first', clientMessageId: 'msg-late' });
    const { conversationId } = first.conversation;
    await store.appendUserTurn(alice, { conversationId, text: 'something else' });
    // Without ClientRequestToken only the stored marker stands between a retry and a duplicate,
    // exactly as once DynamoDB has forgotten the token.
    const afterWindow = createStore(t, { clientRequestTokens: false });
    const retried = await afterWindow.appendUserTurn(alice, {
      conversationId,
      text: 'first',
      clientMessageId: 'msg-late',
    });
    expect(retried).toMatchObject({ duplicate: true, turn: { seq: 1, text: 'first' } });
    expect(retried.conversation.version).toBe(2);
    const { turns } = await store.loadConversation(alice, conversationId);
    expect(turns.map((turn) => turn.text)).toEqual(['first', 'something else']);
  });

  it('answers a token reused with other parameters (IdempotentParameterMismatch) with the stored turn', async () => {
    const store = createStore(t);
    const first = await store.appendUserTurn(alice, { text: 'q', clientMessageId: 'msg-mismatch' });
    const { conversationId } = first.conversation;
    await store.appendUserTurn(alice, { conversationId, text: 'moved on' });
    // Same token within the window, but a newer expected version and time: DynamoDB rejects the
    // token as IdempotentParameterMismatchException; the store must turn that into the duplicate.
    const retried = await createStore(t).appendUserTurn(alice, {
      conversationId,
      text: 'q',
      clientMessageId: 'msg-mismatch',
    });
    expect(retried).toMatchObject({ duplicate: true, turn: { seq: 1 } });
    expect((await store.loadConversation(alice, conversationId)).turns).toHaveLength(2);
  });

  it('creates one conversation when the first message of a new conversation is retried', async () => {
    const owner = { tenantId: 'acme', userId: 'carol' };
    const sends = await Promise.all(
      Array.from({ length: 5 }, () =>
        createStore(t).appendUserTurn(owner, { text: 'new thread', clientMessageId: 'msg-new' }),
      ),
    );
    const later = await createStore(t, { clientRequestTokens: false }).appendUserTurn(owner, {
      text: 'new thread',
      clientMessageId: 'msg-new',
    });
    const ids = new Set([...sends, later].map((send) => send.conversation.conversationId));
    expect(ids.size).toBe(1);
    expect(later.duplicate).toBe(true);
    const { items } = await createStore(t).listConversations(owner);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ turnCount: 1, version: 1, title: 'new thread' });
  });

  it('keeps ids per owner: the same clientMessageId from two users is two turns', async () => {
    const store = createStore(t);
    const fromAlice = await store.appendUserTurn(alice, { text: 'a', clientMessageId: 'shared' });
    const fromBob = await store.appendUserTurn(bob, { text: 'b', clientMessageId: 'shared' });
    expect(fromAlice.duplicate).toBe(false);
    expect(fromBob.duplicate).toBe(false);
    expect(fromBob.conversation.conversationId).not.toBe(fromAlice.conversation.conversationId);
  });

  describe('the generation claim', () => {
    const clock = (start: number) => {
      let time = start;
      return { now: () => new Date(time), advance: (ms: number) => (time += ms) };
    };

    it('is held by the request that stored the message, until it is released', async () => {
      const time = clock(Date.now());
      const store = createStore(t, { now: time.now });
      const until = new Date(time.now().getTime() + 60_000);
      await store.appendUserTurn(alice, {
        text: 'claimed',
        clientMessageId: 'claim-held-01',
        generation: { holder: 'first', until },
      });
      const second = { holder: 'second', until };
      expect(await createStore(t).claimGeneration(alice, 'claim-held-01', second)).toBe(false);
      // Another owner's id of the same spelling is another message.
      expect(await store.claimGeneration(bob, 'claim-held-01', second)).toBe(false);

      await store.releaseGeneration(alice, 'claim-held-01', 'someone-else');
      expect(await store.claimGeneration(alice, 'claim-held-01', second)).toBe(false);
      await store.releaseGeneration(alice, 'claim-held-01', 'first');
      expect(await store.claimGeneration(alice, 'claim-held-01', second)).toBe(true);
      expect(await store.claimGeneration(alice, 'claim-held-01', { holder: 'third', until })).toBe(
        false,
      );
    });

    it('passes to a retry once the holder died and its time ran out; of several, to one', async () => {
      const time = clock(Date.now());
      const store = createStore(t, { now: time.now });
      await store.appendUserTurn(alice, {
        text: 'orphaned',
        clientMessageId: 'claim-expired-01',
        generation: { holder: 'died', until: new Date(time.now().getTime() + 30_000) },
      });
      time.advance(31_000);
      const until = new Date(time.now().getTime() + 60_000);
      const claims = await Promise.all(
        Array.from({ length: 5 }, (_, index) =>
          createStore(t, { now: time.now }).claimGeneration(alice, 'claim-expired-01', {
            holder: `retry-${index}`,
            until,
          }),
        ),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      // The late release of the holder that died does not free the new holder's claim.
      await store.releaseGeneration(alice, 'claim-expired-01', 'died');
      expect(
        await store.claimGeneration(alice, 'claim-expired-01', { holder: 'late', until }),
      ).toBe(false);
    });

    it('cannot be claimed for a message that was never stored', async () => {
      const store = createStore(t);
      const claim = { holder: 'nobody', until: new Date(Date.now() + 60_000) };
      expect(await store.claimGeneration(alice, 'never-stored-01', claim)).toBe(false);
    });
  });
});
