import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationNotFoundError } from '../../../functions/chat/errors.js';
import type { ConversationStore } from '../../../functions/chat/ports.js';
import type { Answer } from '../../../functions/contract/answer.js';
import { createTestTables, type TestTables } from '../../support/dynamodb-test-tables.js';
import { alice, bob, createStore } from './store-fixture.js';

describe('owner isolation', () => {
  let t: TestTables;
  let store: ConversationStore;
  let conversationId: string;
  let inquiryId: string;
  beforeAll(async () => {
    t = await createTestTables('isolation');
    store = createStore(t);
    const first = await store.appendUserTurn(alice, { text: 'alice private question' });
    conversationId = first.conversation.conversationId;
    inquiryId = first.turn.inquiryId;
  });
  afterAll(() => t.dispose());

  const answer: Answer = { response_type: 'results', general_advice: 'x' };
  const attempts: [string, () => Promise<unknown>][] = [
    ['get', () => store.getConversation(bob, conversationId)],
    ['load', () => store.loadConversation(bob, conversationId)],
    ['append a user turn', () => store.appendUserTurn(bob, { conversationId, text: 'hi' })],
    [
      'append an assistant turn',
      () =>
        store.appendAssistantTurn(bob, {
          conversationId,
          inquiryId,
          kind: 'answer',
          text: 'x',
          result: answer,
          status: 'complete',
        }),
    ],
    ['rename', () => store.renameConversation(bob, conversationId, 'mine now')],
    ['request a stop', () => store.requestStop(bob, conversationId, 1)],
    ['ask whether stopped', () => store.isStopRequested(bob, conversationId, 1)],
    [
      'renew a generation lease',
      async () => {
        // A renewal by another owner finds nothing to renew rather than failing loudly; that it
        // changed nothing is checked below.
        const renewed = await store.renewGeneration(bob, {
          conversationId,
          userSeq: 1,
          holder: 'intruder',
          until: new Date(Date.now() + 60_000),
        });
        if (!renewed) throw new ConversationNotFoundError();
      },
    ],
    ['delete', () => store.deleteConversation(bob, conversationId)],
  ];

  it.each(attempts)(
    'answers not-found when another user tries to %s, changing nothing',
    async (_, attempt) => {
      const before = await store.loadConversation(alice, conversationId);
      await expect(attempt()).rejects.toMatchObject({
        name: 'ConversationNotFoundError',
        code: 'not_found',
      });
      // A fresh container, so the answer comes from the tables, not from a cache.
      const after = await createStore(t).loadConversation(alice, conversationId);
      expect(after).toEqual(before);
      expect(await store.isStopRequested(alice, conversationId, 1)).toBe(false);
    },
  );

  it('lists none of it to another user, even in the same tenant', async () => {
    expect((await store.listConversations(bob)).items).toEqual([]);
    expect((await store.listConversations(alice)).items.map((item) => item.conversationId)).toEqual(
      [conversationId],
    );
  });

  it('treats the same user id in another tenant as another owner', async () => {
    await expect(
      store.loadConversation({ tenantId: 'other', userId: 'alice' }, conversationId),
    ).rejects.toMatchObject({ name: 'ConversationNotFoundError' });
  });

  it('refuses owner ids that could alias another owner key', async () => {
    await expect(store.listConversations({ tenantId: 'acme#alice', userId: 'x' })).rejects.toThrow(
      /must not contain "#"/,
    );
  });
});
