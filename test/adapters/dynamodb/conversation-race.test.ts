import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestTables, type TestTables } from '../../support/dynamodb-test-tables.js';
import { alice, createStore, gate } from './store-fixture.js';

describe('a writer overtaken between its read and its commit (the lost-turn race)', () => {
  let t: TestTables;
  beforeAll(async () => {
    t = await createTestTables('race');
  });
  afterAll(() => t.dispose());

  it('fails its condition, retries, and lands after the overtaking turn; reads never miss a turn', async () => {
    const setup = createStore(t);
    const first = await setup.appendUserTurn(alice, { text: 'turn 1' });
    const { conversationId } = first.conversation;
    for (let n = 2; n <= 9; n++)
      await setup.appendUserTurn(alice, { conversationId, text: `turn ${n}` });

    const paused = gate();
    const resume = gate();
    const seen: { attempt: number; expectedVersion: number | undefined }[] = [];
    const writerA = createStore(t, {
      hooks: {
        async beforeCommit({ attempt, expectedVersion }) {
          seen.push({ attempt, expectedVersion });
          if (attempt === 1) {
            paused.open();
            await resume.opened;
          }
        },
      },
    });
    // A's container has the conversation warm at version 9.
    expect((await writerA.loadConversation(alice, conversationId)).conversation.version).toBe(9);
    const writerB = createStore(t);
    const reader = createStore(t);

    const landingA = writerA.appendUserTurn(alice, { conversationId, text: 'from A' });
    await paused.opened;
    const b = await writerB.appendUserTurn(alice, { conversationId, text: 'from B' });
    expect(b.turn.seq).toBe(10);

    // While A is paused: every reader, including A's warm container, sees B's turn.
    for (const store of [reader, writerA]) {
      const during = await store.loadConversation(alice, conversationId);
      expect(during.conversation.version).toBe(10);
      expect(during.turns.map((turn) => turn.text).at(-1)).toBe('from B');
      expect(during.turns).toHaveLength(10);
    }

    resume.open();
    const a = await landingA;
    expect(a.turn.seq).toBe(11);
    expect(a.conversation.version).toBe(11);
    expect(seen).toEqual([
      { attempt: 1, expectedVersion: 9 },
      { attempt: 2, expectedVersion: 10 },
    ]);

    const after = await reader.loadConversation(alice, conversationId);
    expect(after.turns.map((turn) => turn.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(after.turns.slice(-2).map((turn) => turn.text)).toEqual(['from B', 'from A']);
    expect((await writerA.loadConversation(alice, conversationId)).conversation.version).toBe(11);
  });

  it('gives up with ConversationConflictError once maxAttempts are spent', async () => {
    const other = createStore(t);
    const { conversation } = await other.appendUserTurn(alice, { text: 'contested' });
    const { conversationId } = conversation;
    const loser = createStore(t, {
      maxAttempts: 3,
      hooks: {
        // Before each of the loser's commits another writer gets in first.
        beforeCommit: async () => {
          await other.appendUserTurn(alice, { conversationId, text: 'winner' });
        },
      },
    });
    await expect(
      loser.appendUserTurn(alice, { conversationId, text: 'loser' }),
    ).rejects.toMatchObject({ name: 'ConversationConflictError', code: 'conflict' });
    const final = await other.loadConversation(alice, conversationId);
    expect(final.turns.map((turn) => turn.text)).toEqual([
      'contested',
      'winner',
      'winner',
      'winner',
    ]);
  });
});
