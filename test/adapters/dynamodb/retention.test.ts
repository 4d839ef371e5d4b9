import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createExpiredConversationSweeper,
  expiredConversationOf,
} from '../../../functions/adapters/dynamodb/expire-conversations.js';
import { createDynamoDbInsightsStore } from '../../../functions/adapters/dynamodb/insights-store.js';
import type { Owner } from '../../../functions/chat/ports.js';
import { createTestTables, type TestTables } from '../../support/dynamodb-test-tables.js';
import { createStore } from './store-fixture.js';

const day = 86_400;

/**
 * A DynamoDB Streams record of the Conversations table (stream view KEYS_ONLY), shaped like the
 * documented example of a TTL deletion:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/time-to-live-ttl-streams.html
 */
function streamRecord(
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE',
  key: { ownerId: string; conversationId: string },
  sequenceNumber: string,
  userIdentity?: { type: string; principalId: string },
): DynamoDBRecord {
  return {
    eventID: `event-${sequenceNumber}`,
    eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: 'us-east-1',
    dynamodb: {
      ApproximateCreationDateTime: 1_795_000_000,
      Keys: { ownerId: { S: key.ownerId }, conversationId: { S: key.conversationId } },
      SequenceNumber: sequenceNumber,
      SizeBytes: 90,
      StreamViewType: 'KEYS_ONLY',
    },
    ...(userIdentity ? { userIdentity } : {}),
    eventSourceARN:
      'arn:aws:dynamodb:us-east-1:123456789012:table/Conversations/stream/2026-12-01T00:00:00.000',
  };
}

const ttl = { type: 'Service', principalId: 'dynamodb.amazonaws.com' };

/** The sweeper's log where nothing should fail: a line there fails the sweep, and so the test. */
const failOnLog = {
  error: (message: string) => {
    throw new Error(`unexpected log line: ${message}`);
  },
};

describe('retention per conversation', () => {
  let t: TestTables;
  let documents: DynamoDBDocumentClient;
  beforeAll(async () => {
    t = await createTestTables('retention');
    documents = DynamoDBDocumentClient.from(t.client);
  });
  afterAll(() => t.dispose());

  // Starts at the real time: DynamoDB Local's TTL sweeper deletes items whose expiresAt is in the
  // real past.
  function clock(start = Date.now()) {
    let time = start;
    return { now: () => new Date(time), advance: (ms: number) => (time += ms) };
  }

  async function rowOf(ownerId: string, conversationId: string) {
    const { Item } = await documents.send(
      new GetCommand({ TableName: t.tables.conversations, Key: { ownerId, conversationId } }),
    );
    return Item;
  }

  async function turnKeysOf(conversationKey: string) {
    const { Items } = await documents.send(
      new QueryCommand({
        TableName: t.tables.turns,
        KeyConditionExpression: 'conversationKey = :key',
        ExpressionAttributeValues: { ':key': conversationKey },
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map((item) => item.seq as number);
  }

  describe('the conversation row', () => {
    it('moves its expiresAt to retentionDays after each commit, appends and renames alike', async () => {
      const time = clock();
      const store = createStore(t, { retentionDays: 30, now: time.now });
      const owner: Owner = { tenantId: 'acme', userId: 'active' };
      const { conversation } = await store.appendUserTurn(owner, { text: 'first' });
      const { conversationId } = conversation;
      const expiresAt = () => Math.floor(time.now().getTime() / 1000) + 30 * day;
      expect((await rowOf('acme#active', conversationId))?.expiresAt).toBe(expiresAt());

      time.advance(10 * day * 1000);
      await store.appendAssistantTurn(owner, {
        conversationId,
        inquiryId: conversation.openInquiryId ?? '',
        kind: 'clarification',
        text: 'Which OS?',
        status: 'complete',
      });
      expect((await rowOf('acme#active', conversationId))?.expiresAt).toBe(expiresAt());

      time.advance(10 * day * 1000);
      await store.renameConversation(owner, conversationId, 'VPN');
      expect((await rowOf('acme#active', conversationId))?.expiresAt).toBe(expiresAt());
    });

    it('keeps the first turns of a conversation active for longer than retentionDays', async () => {
      const time = clock();
      const store = createStore(t, { retentionDays: 30, now: time.now });
      const owner: Owner = { tenantId: 'acme', userId: 'months' };
      const { conversation } = await store.appendUserTurn(owner, { text: 'turn 1' });
      const { conversationId } = conversation;
      // A turn every 20 days for 100 days: each gap is inside retention, the total is not.
      for (let n = 2; n <= 6; n++) {
        time.advance(20 * day * 1000);
        await store.appendUserTurn(owner, { conversationId, text: `turn ${n}` });
      }
      const fresh = createStore(t, { now: time.now });
      const { turns } = await fresh.loadConversation(owner, conversationId);
      expect(turns.map((turn) => turn.text)).toEqual([1, 2, 3, 4, 5, 6].map((n) => `turn ${n}`));
    });

    it('refuses a commit to a row past its expiry that TTL has not removed yet', async () => {
      const time = clock();
      const store = createStore(t, { retentionDays: 30, now: time.now });
      const owner: Owner = { tenantId: 'acme', userId: 'lapsed' };
      const { conversation } = await store.appendUserTurn(owner, { text: 'q' });
      const { conversationId } = conversation;
      time.advance(31 * day * 1000);
      // This store's cache still holds the row, so its first attempt conditions on it unread.
      await expect(
        store.appendUserTurn(owner, { conversationId, text: 'too late' }),
      ).rejects.toMatchObject({ name: 'ConversationNotFoundError' });
      await expect(
        store.renameConversation(owner, conversationId, 'too late'),
      ).rejects.toMatchObject({ name: 'ConversationNotFoundError' });
      expect(await rowOf('acme#lapsed', conversationId)).toMatchObject({
        version: 1,
        turnCount: 1,
      });
    });

    it('still hides a turn written before this change once its own TTL has passed', async () => {
      const time = clock();
      const store = createStore(t, { retentionDays: 30, now: time.now });
      const owner: Owner = { tenantId: 'acme', userId: 'legacy' };
      const { conversation } = await store.appendUserTurn(owner, { text: 'new style' });
      const { conversationId } = conversation;
      const legacyExpiresAt = Math.floor(time.now().getTime() / 1000) + 10 * day;
      await documents.send(
        new PutCommand({
          TableName: t.tables.turns,
          Item: {
            conversationKey: `acme#legacy#${conversationId}`,
            seq: 2,
            role: 'assistant',
            kind: 'answer',
            inquiryId: conversation.openInquiryId,
            text: 'legacy turn',
            status: 'complete',
            createdAt: time.now().toISOString(),
            expiresAt: legacyExpiresAt,
          },
        }),
      );
      const reader = createStore(t, { now: time.now });
      expect(
        (await reader.loadConversation(owner, conversationId)).turns.map((turn) => turn.text),
      ).toEqual(['new style', 'legacy turn']);
      time.advance(11 * day * 1000);
      expect(
        (await createStore(t, { now: time.now }).loadConversation(owner, conversationId)).turns.map(
          (turn) => turn.text,
        ),
      ).toEqual(['new style']);
    });
  });

  describe('createExpiredConversationSweeper', () => {
    it('deletes every turn and idempotency marker of a conversation TTL removed (more than one batch)', async () => {
      const store = createStore(t);
      const owner: Owner = { tenantId: 'acme', userId: 'expired' };
      const first = await store.appendUserTurn(owner, { text: 't0', clientMessageId: 'exp-0' });
      const { conversationId } = first.conversation;
      for (let n = 1; n < 20; n++) {
        await store.appendUserTurn(owner, {
          conversationId,
          text: `t${n}`,
          clientMessageId: `exp-${n}`,
        });
      }
      const kept = await store.appendUserTurn(owner, { text: 'other', clientMessageId: 'keep' });
      // What TTL does: the row disappears (a delete by the service).
      await documents.send(
        new DeleteCommand({
          TableName: t.tables.conversations,
          Key: { ownerId: 'acme#expired', conversationId },
        }),
      );
      expect(await turnKeysOf(`acme#expired#${conversationId}`)).toHaveLength(20);

      const sweep = createExpiredConversationSweeper({
        client: t.client,
        turnsTable: t.tables.turns,
        log: failOnLog,
      });
      const response = await sweep({
        Records: [streamRecord('REMOVE', { ownerId: 'acme#expired', conversationId }, '100', ttl)],
      });

      expect(response).toEqual({ batchItemFailures: [] });
      expect(await turnKeysOf(`acme#expired#${conversationId}`)).toEqual([]);
      // A retry of an expired conversation's message is no longer a duplicate of anything.
      const retried = await store.appendUserTurn(owner, { text: 't0', clientMessageId: 'exp-0' });
      expect(retried.duplicate).toBe(false);
      expect(retried.conversation.conversationId).not.toBe(conversationId);
      // The owner's other conversation, and its marker, are untouched.
      expect(await turnKeysOf(`acme#expired#${kept.conversation.conversationId}`)).toEqual([1]);
      const again = await store.appendUserTurn(owner, { text: 'other', clientMessageId: 'keep' });
      expect(again.duplicate).toBe(true);
    });

    it("forgets the expired conversation's insights examples, keeping the counts", async () => {
      const store = createStore(t);
      const insights = createDynamoDbInsightsStore({
        documents,
        tableName: t.tables.insights,
        retentionDays: 90,
        now: () => new Date(),
      });
      const owner: Owner = { tenantId: 'acme', userId: 'expired-gap' };
      const { conversation } = await store.appendUserTurn(owner, { text: 'zqxwv' });
      const { conversationId } = conversation;
      const now = new Date();
      await insights.recordChat(
        { tenantId: 'acme' },
        {
          day: now.toISOString().slice(0, 10),
          conversationId,
          answerSeq: 2,
          outcome: 'complete',
          inputTokens: 1,
          outputTokens: 1,
          citedIssueIds: [],
          retrievedIssueIds: [],
          gap: {
            topicKey: 'uncategorized|zqxwv',
            category: 'uncategorized',
            terms: ['zqxwv'],
            reason: 'weak_retrieval',
            example: { text: 'zqxwv', ownerHash: 'h' },
          },
        },
      );
      const examplesOf = async () =>
        (await insights.readInsights({ tenantId: 'acme' }, 30, now)).gaps.flatMap((gap) =>
          gap.examples.map((example) => example.text),
        );
      expect(await examplesOf()).toContain('zqxwv');
      const sweep = createExpiredConversationSweeper({
        client: t.client,
        turnsTable: t.tables.turns,
        insights,
        log: failOnLog,
      });
      const response = await sweep({
        Records: [
          streamRecord('REMOVE', { ownerId: 'acme#expired-gap', conversationId }, '7', ttl),
        ],
      });
      expect(response).toEqual({ batchItemFailures: [] });
      expect(await examplesOf()).not.toContain('zqxwv');
      const [gap] = (await insights.readInsights({ tenantId: 'acme' }, 30, now)).gaps.filter(
        (entry) => entry.topicKey === 'uncategorized|zqxwv',
      );
      expect(gap?.count).toBe(1);
    });

    it('ignores deletes by users or functions, inserts and updates', async () => {
      const store = createStore(t);
      const owner: Owner = { tenantId: 'acme', userId: 'ignored' };
      const { conversation } = await store.appendUserTurn(owner, { text: 'q' });
      const key = { ownerId: 'acme#ignored', conversationId: conversation.conversationId };
      const records = [
        streamRecord('REMOVE', key, '1'),
        streamRecord('REMOVE', key, '2', {
          type: 'Service',
          principalId: 'some-other.amazonaws.com',
        }),
        streamRecord('INSERT', key, '3'),
        streamRecord('MODIFY', key, '4', ttl),
      ];
      expect(records.map(expiredConversationOf)).toEqual([
        undefined,
        undefined,
        undefined,
        undefined,
      ]);
      const sweep = createExpiredConversationSweeper({
        client: t.client,
        turnsTable: t.tables.turns,
        log: failOnLog,
      });
      expect(await sweep({ Records: records })).toEqual({ batchItemFailures: [] });
      expect(await turnKeysOf(`acme#ignored#${conversation.conversationId}`)).toEqual([1]);
    });

    it('reports the first record it could not sweep, so Lambda retries from there', async () => {
      const logged: { message: string; fields?: Record<string, unknown> }[] = [];
      const sweep = createExpiredConversationSweeper({
        client: t.client,
        turnsTable: `${t.tables.turns}-missing`,
        log: { error: (message, fields) => logged.push({ message, fields }) },
      });
      const key = (n: number) => ({
        ownerId: 'acme#failing',
        conversationId: `01JD000000000000000000000${n}`,
      });
      const response = await sweep({
        Records: [
          streamRecord('REMOVE', key(1), '10'),
          streamRecord('REMOVE', key(2), '11', ttl),
          streamRecord('REMOVE', key(3), '12', ttl),
        ],
      });
      expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '11' }] });
      expect(logged).toEqual([
        {
          message: 'Sweeping an expired conversation failed',
          fields: expect.objectContaining({ sequenceNumber: '11' }),
        },
      ]);
    });
  });
});
