import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConversationStore } from '../../../functions/chat/ports.js';
import {
  createTestClient,
  createTestTables,
  type TestTables,
} from '../../support/dynamodb-test-tables.js';
import { alice, countRequests, createStore } from './store-fixture.js';

describe('the per-container history cache', () => {
  let t: TestTables;
  beforeAll(async () => {
    t = await createTestTables('cache');
  });
  afterAll(() => t.dispose());

  /** A store on its own client, so its requests can be counted apart from the other container's. */
  function container() {
    const { client } = createTestClient();
    const requests = countRequests(client);
    const store = createStore({ ...t, client });
    return { store, requests };
  }

  async function seeded(): Promise<{ conversationId: string; other: ConversationStore }> {
    const other = createStore(t);
    const { conversation, turn } = await other.appendUserTurn(alice, { text: 'one' });
    await other.appendAssistantTurn(alice, {
      conversationId: conversation.conversationId,
      inquiryId: turn.inquiryId,
      kind: 'clarification',
      text: 'two',
      status: 'complete',
    });
    return { conversationId: conversation.conversationId, other };
  }

  it('answers a repeated load from the cache: one consistent GetItem, no turn query', async () => {
    const { conversationId } = await seeded();
    const { store, requests } = container();
    const miss = await store.loadConversation(alice, conversationId);
    expect(requests.count('Query')).toBe(1);
    expect(requests.count('GetItem')).toBe(2); // version, turns, version again
    requests.reset();
    const hit = await store.loadConversation(alice, conversationId);
    expect(requests.count('Query')).toBe(0);
    expect(requests.count('GetItem')).toBe(1);
    expect(hit).toEqual(miss);
  });

  it("keeps its own appends warm: the container's next load needs no query", async () => {
    const { conversationId } = await seeded();
    const { store, requests } = container();
    await store.loadConversation(alice, conversationId);
    await store.appendUserTurn(alice, { conversationId, text: 'three' });
    requests.reset();
    const { turns } = await store.loadConversation(alice, conversationId);
    expect(requests.count('Query')).toBe(0);
    expect(turns.map((turn) => turn.text)).toEqual(['one', 'two', 'three']);
  });

  const changes: [string, (other: ConversationStore, id: string) => Promise<unknown>][] = [
    ['append', (other, id) => other.appendUserTurn(alice, { conversationId: id, text: 'three' })],
    ['rename', (other, id) => other.renameConversation(alice, id, 'renamed')],
  ];

  it.each(changes)(
    'misses after an %s by another container and returns the change',
    async (name, change) => {
      const { conversationId, other } = await seeded();
      const { store, requests } = container();
      const before = await store.loadConversation(alice, conversationId);
      await change(other, conversationId);
      requests.reset();
      const after = await store.loadConversation(alice, conversationId);
      expect(requests.count('Query')).toBe(1);
      expect(after.conversation.version).toBe(before.conversation.version + 1);
      const expected = {
        append: () => expect(after.turns.map((turn) => turn.text)).toEqual(['one', 'two', 'three']),
        rename: () => expect(after.conversation.title).toBe('renamed'),
      }[name];
      expected?.();
    },
  );

  it('answers not-found after another container deleted the conversation', async () => {
    const { conversationId, other } = await seeded();
    const { store } = container();
    await store.loadConversation(alice, conversationId);
    await other.deleteConversation(alice, conversationId);
    await expect(store.loadConversation(alice, conversationId)).rejects.toMatchObject({
      name: 'ConversationNotFoundError',
    });
  });

  it('does not move the version on a stop request, so the cache stays warm', async () => {
    const { conversationId, other } = await seeded();
    const { store, requests } = container();
    await store.loadConversation(alice, conversationId);
    await other.requestStop(alice, conversationId, 1);
    requests.reset();
    await store.loadConversation(alice, conversationId);
    expect(requests.count('Query')).toBe(0);
  });

  it('stores nothing when the byte bound is 0', async () => {
    const { conversationId } = await seeded();
    const { client } = createTestClient();
    const requests = countRequests(client);
    const store = createStore({ ...t, client }, { cacheMaxBytes: 0 });
    await store.loadConversation(alice, conversationId);
    await store.loadConversation(alice, conversationId);
    expect(requests.count('Query')).toBe(2);
  });
});
