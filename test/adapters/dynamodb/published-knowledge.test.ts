import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIssueNumbers } from '../../../functions/adapters/dynamodb/counters.js';
import { createTestTables, type TestTables } from '../../support/dynamodb-test-tables.js';
import { alice, bob, createStore } from './store-fixture.js';

/**
 * Knowledge capture's store half on DynamoDB Local: the published-ticket record on the
 * conversation row (one per inquiry, decided inside the versioned commit, visible to every
 * container's cache) and the issue-number counter.
 */
describe('published knowledge in the store', () => {
  let t: TestTables;
  beforeAll(async () => {
    t = await createTestTables('knowledge');
  });
  afterAll(() => t.dispose());

  const record = (inquiryId: string, issueId: string) => ({
    inquiryId,
    issueId,
    subject: `ticket ${issueId}`,
    restricted: false,
    publishedAt: new Date().toISOString(),
  });

  it('records one ticket per inquiry, bumps the version and shows it to another container', async () => {
    const writer = createStore(t);
    const reader = createStore(t);
    const { conversation, turn } = await writer.appendUserTurn(alice, { text: 'VPN' });
    const { conversationId } = conversation;
    await reader.loadConversation(alice, conversationId); // warm the reader's cache
    const published = await writer.recordPublishedKnowledge(
      alice,
      conversationId,
      record(turn.inquiryId, '900001'),
    );
    expect(published.version).toBe(conversation.version + 1);
    expect(published.updatedAt).toBe(conversation.updatedAt);
    const seen = await reader.loadConversation(alice, conversationId);
    expect(seen.conversation.knowledge).toEqual(
      [record(turn.inquiryId, '900001')].map((entry) => ({
        ...entry,
        publishedAt: expect.any(String),
      })),
    );
    await expect(
      reader.recordPublishedKnowledge(alice, conversationId, record(turn.inquiryId, '900002')),
    ).rejects.toMatchObject({ code: 'already_published', issueId: '900001' });
  });

  it('lets exactly one of three concurrent publishes of the same inquiry win', async () => {
    const store = createStore(t);
    const { conversation, turn } = await store.appendUserTurn(alice, { text: 'Printer' });
    const attempts = await Promise.allSettled(
      ['900010', '900011', '900012'].map((issueId) =>
        createStore(t).recordPublishedKnowledge(
          alice,
          conversation.conversationId,
          record(turn.inquiryId, issueId),
        ),
      ),
    );
    expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(1);
    const { conversation: after } = await createStore(t).loadConversation(
      alice,
      conversation.conversationId,
    );
    expect(after.knowledge).toHaveLength(1);
    expect(after.version).toBe(conversation.version + 1);
  });

  it('is not found for another owner', async () => {
    const store = createStore(t);
    const { conversation, turn } = await store.appendUserTurn(alice, { text: 'Mail' });
    await expect(
      store.recordPublishedKnowledge(bob, conversation.conversationId, record(turn.inquiryId, '1')),
    ).rejects.toMatchObject({ name: 'ConversationNotFoundError', code: 'not_found' });
  });

  it('hands out consecutive issue numbers from the first, never twice, per tenant', async () => {
    const documents = DynamoDBDocumentClient.from(t.client);
    const numbers = createIssueNumbers({ documents, tables: t.tables }, 900_001);
    const issued = await Promise.all(Array.from({ length: 10 }, () => numbers.next('tenant-a')));
    expect([...issued].sort()).toEqual(
      Array.from({ length: 10 }, (_, index) => String(900_001 + index)),
    );
    expect(await numbers.next('tenant-b')).toBe('900001');
  });
});
