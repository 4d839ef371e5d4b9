import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswerInProgressError, NotLatestQuestionError } from '../../../functions/chat/errors.js';
import type { ConversationStore } from '../../../functions/chat/ports.js';
import { createTestTables, type TestTables } from '../../support/dynamodb-test-tables.js';
import { alice, createStore } from './store-fixture.js';

/**
 * Superseding the latest user turn (ADR 0010) against DynamoDB Local: decided from the row the
 * commit is conditioned on — also when that row came from a stale per-container cache.
 */
describe('appendUserTurn with supersedes', () => {
  let t: TestTables;
  beforeAll(async () => {
    t = await createTestTables('supersede');
  });
  afterAll(() => t.dispose());

  async function answered(store: ConversationStore, text: string, conversationId?: string) {
    const { conversation, turn } = await store.appendUserTurn(alice, {
      text,
      ...(conversationId ? { conversationId } : {}),
    });
    await store.appendAssistantTurn(alice, {
      conversationId: conversation.conversationId,
      inquiryId: turn.inquiryId,
      kind: 'answer',
      text: `answer to ${text}`,
      status: 'complete',
    });
    return { conversationId: conversation.conversationId, turn };
  }

  it('appends a new version in the same inquiry and kind, keeping the old one', async () => {
    const store = createStore(t);
    const { conversationId, turn } = await answered(store, 'VPN');
    const edited = await store.appendUserTurn(alice, {
      conversationId,
      text: 'VPN (edited)',
      supersedes: turn.seq,
    });
    expect(edited.turn).toMatchObject({
      seq: 3,
      kind: 'question',
      inquiryId: turn.inquiryId,
      supersedes: 1,
    });
    const { turns, conversation } = await createStore(t).loadConversation(alice, conversationId);
    expect(turns.map((stored) => [stored.seq, stored.supersedes])).toEqual([
      [1, undefined],
      [2, undefined],
      [3, 1],
    ]);
    expect(conversation.version).toBe(3);
  });

  it('refuses an older turn and writes nothing', async () => {
    const store = createStore(t);
    const { conversationId } = await answered(store, 'one');
    await answered(store, 'two', conversationId);
    for (const supersedes of [1, 2, 4]) {
      await expect(
        store.appendUserTurn(alice, { conversationId, text: 'x', supersedes }),
      ).rejects.toBeInstanceOf(NotLatestQuestionError);
    }
    expect((await store.getConversation(alice, conversationId)).version).toBe(4);
  });

  it('decides against the current row when its cached row is stale', async () => {
    const stale = createStore(t);
    const other = createStore(t);
    const { conversationId } = await answered(stale, 'one');
    // `stale` caches the conversation at version 2; another container appends a newer question.
    await stale.loadConversation(alice, conversationId);
    const { turn: newer } = await answered(other, 'two', conversationId);
    const edited = await stale.appendUserTurn(alice, {
      conversationId,
      text: 'two (edited)',
      supersedes: newer.seq,
    });
    expect(edited.turn).toMatchObject({ seq: 5, supersedes: 3, inquiryId: newer.inquiryId });
  });

  it('refuses while the answer to that turn is being generated, until it is stored', async () => {
    const store = createStore(t);
    const { conversation, turn } = await store.appendUserTurn(alice, {
      text: 'printer',
      clientMessageId: 'supersede-in-flight-1',
      generation: { holder: 'h1', until: new Date(Date.now() + 60_000) },
    });
    const { conversationId } = conversation;
    await expect(
      store.appendUserTurn(alice, { conversationId, text: 'printer', supersedes: turn.seq }),
    ).rejects.toBeInstanceOf(AnswerInProgressError);
    await store.appendAssistantTurn(alice, {
      conversationId,
      inquiryId: turn.inquiryId,
      kind: 'answer',
      text: 'done',
      status: 'complete',
    });
    const regenerated = await store.appendUserTurn(alice, {
      conversationId,
      text: 'printer',
      supersedes: turn.seq,
    });
    expect(regenerated.turn.supersedes).toBe(turn.seq);
  });

  it('returns the stored turn to a retry of a regenerate that already landed', async () => {
    const store = createStore(t);
    const { conversationId, turn } = await answered(store, 'Teams');
    const input = {
      conversationId,
      text: 'Teams',
      supersedes: turn.seq,
      clientMessageId: 'supersede-retry-1',
    };
    const first = await store.appendUserTurn(alice, input);
    // Seq 1 is no longer the latest question, but this is the same message: not refused.
    const retry = await createStore(t).appendUserTurn(alice, input);
    expect(retry.duplicate).toBe(true);
    expect(retry.turn).toEqual(first.turn);
  });
});
