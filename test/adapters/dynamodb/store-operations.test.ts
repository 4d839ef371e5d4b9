import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { turnSizeLimits } from '../../../functions/adapters/dynamodb/conversation-items.js';
import type { Answer } from '../../../functions/contract/answer.js';
import {
  ANSWER_NOTICE_LIMITS,
  ANSWER_NOTICES_MAX_BYTES,
  answerNoticesOf,
} from '../../../functions/surges/answer-notices.js';
import { createTestTables, type TestTables } from '../../support/dynamodb-test-tables.js';
import { alice, createStore } from './store-fixture.js';

const day = 86_400;

describe('createDynamoDbConversationStore', () => {
  let t: TestTables;
  let documents: DynamoDBDocumentClient;
  beforeAll(async () => {
    t = await createTestTables('operations');
    documents = DynamoDBDocumentClient.from(t.client);
  });
  afterAll(() => t.dispose());

  /** A clock the test moves by hand. */
  // Starts at the real time: DynamoDB Local's TTL sweeper deletes items whose expiresAt is in the
  // real past, so a fixed past start date made rows vanish mid-test.
  function clock(start = Date.now()) {
    let time = start;
    return { now: () => new Date(time), advance: (ms: number) => (time += ms) };
  }

  const results: Answer = {
    response_type: 'results',
    general_advice: 'Reset the VPN profile.',
    results: [{ issue_id: '1234', subject: 'VPN', summary: 's', resolution: 'r' }],
    todo_actions: ['Reset profile'],
  };

  describe('inquiries', () => {
    it('starts an inquiry with a question, keeps it open only while its clarification awaits a reply, closes it with results', async () => {
      const store = createStore(t);
      const q = await store.appendUserTurn(alice, { text: 'VPNに繋がらない' });
      expect(q.turn).toMatchObject({ seq: 1, role: 'user', kind: 'question', status: 'complete' });
      const inquiryId = q.turn.inquiryId;
      expect(q.conversation.openInquiryId).toBeUndefined();
      const { conversationId } = q.conversation;

      const clarification = await store.appendAssistantTurn(alice, {
        conversationId,
        inquiryId,
        kind: 'clarification',
        text: 'Which OS?',
        status: 'complete',
      });
      expect(clarification.conversation.openInquiryId).toBe(inquiryId);
      const option = await store.appendUserTurn(alice, { conversationId, text: 'Windows' });
      expect(option.turn).toMatchObject({ kind: 'option', inquiryId });
      expect(option.conversation.openInquiryId).toBeUndefined();

      const answer = await store.appendAssistantTurn(alice, {
        conversationId,
        inquiryId,
        kind: 'answer',
        text: results.general_advice,
        result: results,
        status: 'complete',
      });
      expect(answer.conversation.openInquiryId).toBeUndefined();
      expect(answer.turn.result).toEqual(results);

      const next = await store.appendUserTurn(alice, { conversationId, text: 'Outlook too' });
      expect(next.turn.kind).toBe('question');
      expect(next.turn.inquiryId).not.toBe(inquiryId);
      const loaded = await createStore(t).loadConversation(alice, conversationId);
      expect(loaded.turns.map((turn) => [turn.seq, turn.kind])).toEqual([
        [1, 'question'],
        [2, 'clarification'],
        [3, 'option'],
        [4, 'answer'],
        [5, 'question'],
      ]);
      expect(loaded.turns[3]?.result).toEqual(results);
      expect(loaded.conversation).toMatchObject({ version: 5, turnCount: 5 });
    });

    /** A conversation whose inquiry awaits the reply to a clarification. */
    async function pendingClarification(store = createStore(t)) {
      const q = await store.appendUserTurn(alice, { text: 'ログインできない' });
      const { conversationId } = q.conversation;
      const inquiryId = q.turn.inquiryId;
      const clarification = await store.appendAssistantTurn(alice, {
        conversationId,
        inquiryId,
        kind: 'clarification',
        text: 'Which system?',
        status: 'complete',
      });
      expect(clarification.conversation.openInquiryId).toBe(inquiryId);
      return { store, conversationId, inquiryId };
    }

    it('leaves a newer open inquiry alone when an answer closes an older one', async () => {
      const { store, conversationId, inquiryId } = await pendingClarification();
      const stale = await store.appendAssistantTurn(alice, {
        conversationId,
        inquiryId: 'an-older-inquiry',
        kind: 'answer',
        text: 'late',
        status: 'complete',
      });
      expect(stale.conversation.openInquiryId).toBe(inquiryId);
    });

    it.each(['failed', 'stopped'] as const)(
      'starts a new inquiry with the message after a %s answer',
      async (status) => {
        const store = createStore(t);
        const q1 = await store.appendUserTurn(alice, { text: 'プリンターの設置依頼をしたい' });
        const { conversationId } = q1.conversation;
        const failed = await store.appendAssistantTurn(alice, {
          conversationId,
          inquiryId: q1.turn.inquiryId,
          kind: 'answer',
          text: '',
          status,
        });
        expect(failed.conversation.openInquiryId).toBeUndefined();
        const q2 = await store.appendUserTurn(alice, {
          conversationId,
          text: 'Salesforceにログインできない',
        });
        expect(q2.turn.kind).toBe('question');
        expect(q2.turn.inquiryId).not.toBe(q1.turn.inquiryId);
      },
    );

    it('closes the inquiry when a reply to its clarification fails', async () => {
      const { store, conversationId, inquiryId } = await pendingClarification();
      await store.appendUserTurn(alice, { conversationId, text: 'Salesforce' });
      await store.appendAssistantTurn(alice, {
        conversationId,
        inquiryId,
        kind: 'answer',
        text: '',
        status: 'failed',
      });
      const next = await store.appendUserTurn(alice, { conversationId, text: 'VPNも' });
      expect(next.turn).toMatchObject({ kind: 'question' });
      expect(next.turn.inquiryId).not.toBe(inquiryId);
    });

    it('starts a new inquiry when asked to, even while a clarification awaits its reply', async () => {
      const { store, conversationId, inquiryId } = await pendingClarification();
      const fresh = await store.appendUserTurn(alice, {
        conversationId,
        text: 'プリンターの設置依頼をしたい',
        inquiry: 'new',
      });
      expect(fresh.turn.kind).toBe('question');
      expect(fresh.turn.inquiryId).not.toBe(inquiryId);
      expect(fresh.conversation.openInquiryId).toBeUndefined();
    });

    it('never lets a late clarification of an older inquiry take over from a newer one', async () => {
      const store = createStore(t);
      const q1 = await store.appendUserTurn(alice, { text: 'first' });
      const { conversationId } = q1.conversation;
      // A second question while the first is still generating starts its own inquiry.
      const q2 = await store.appendUserTurn(alice, { conversationId, text: 'second' });
      expect(q2.turn).toMatchObject({ kind: 'question' });
      expect(q2.turn.inquiryId).not.toBe(q1.turn.inquiryId);
      const late = await store.appendAssistantTurn(alice, {
        conversationId,
        inquiryId: q1.turn.inquiryId,
        kind: 'clarification',
        text: 'Which one?',
        status: 'complete',
      });
      expect(late.conversation.openInquiryId).toBeUndefined();
      const own = await store.appendAssistantTurn(alice, {
        conversationId,
        inquiryId: q2.turn.inquiryId,
        kind: 'clarification',
        text: 'Which system?',
        status: 'complete',
      });
      expect(own.conversation.openInquiryId).toBe(q2.turn.inquiryId);
    });
  });

  it('titles a new conversation from its first message, about 60 characters on one line', async () => {
    const text = `ログイン\nできない ${'あ'.repeat(100)}`;
    const { conversation } = await createStore(t).appendUserTurn(alice, { text });
    expect(Array.from(conversation.title)).toHaveLength(60);
    expect(conversation.title.startsWith('ログイン できない あ')).toBe(true);
    expect(conversation.title.endsWith('…')).toBe(true);
  });

  describe('limits', () => {
    it('rejects text over the limit before writing, with a clear message', async () => {
      const store = createStore(t);
      const { conversation } = await store.appendUserTurn(alice, { text: 'ok' });
      const tooLong = 'あ'.repeat(Math.floor(turnSizeLimits.textBytes / 3) + 1); // 3 bytes each
      await expect(
        store.appendUserTurn(alice, { conversationId: conversation.conversationId, text: tooLong }),
      ).rejects.toMatchObject({
        name: 'TurnTooLargeError',
        code: 'too_large',
        message: `Message is ${Buffer.byteLength(tooLong)} bytes (UTF-8); the limit is ${turnSizeLimits.textBytes} bytes`,
      });
      const after = await store.getConversation(alice, conversation.conversationId);
      expect(after.version).toBe(conversation.version);
    });

    it('rejects a result over the limit', async () => {
      const store = createStore(t);
      const { conversation, turn } = await store.appendUserTurn(alice, { text: 'q' });
      const huge = { ...results, general_advice: 'x'.repeat(turnSizeLimits.resultBytes) };
      await expect(
        store.appendAssistantTurn(alice, {
          conversationId: conversation.conversationId,
          inquiryId: turn.inquiryId,
          kind: 'answer',
          text: 'x',
          result: huge,
          status: 'complete',
        }),
      ).rejects.toThrow(/^Answer is \d+ bytes as JSON; the limit is 250000 bytes$/);
    });

    it('stores text, result and notices all at their limits: the limits stay under the 400 KB item size', async () => {
      const store = createStore(t);
      const { conversation, turn } = await store.appendUserTurn(alice, {
        text: 'x'.repeat(turnSizeLimits.textBytes),
      });
      const overhead = JSON.stringify({ ...results, general_advice: '' }).length;
      const maximal = {
        ...results,
        general_advice: 'y'.repeat(turnSizeLimits.resultBytes - overhead),
      };
      const stored = await store.appendAssistantTurn(alice, {
        conversationId: conversation.conversationId,
        inquiryId: turn.inquiryId,
        kind: 'answer',
        text: 'z'.repeat(turnSizeLimits.textBytes),
        result: maximal,
        status: 'complete',
        notices: maximalNotices(),
      });
      expect(stored.turn.seq).toBe(2);
    });

    it('rejects a title longer than the sidebar holds', async () => {
      const store = createStore(t);
      const { conversation } = await store.appendUserTurn(alice, { text: 'q' });
      await expect(
        store.renameConversation(alice, conversation.conversationId, 'x'.repeat(201)),
      ).rejects.toMatchObject({ name: 'TurnTooLargeError' });
    });
  });

  describe('retention', () => {
    // Retention is per conversation (issue #16): the row's TTL, not each turn's. More in
    // retention.test.ts.
    it('sets the conversation row TTL retentionDays ahead and none on its turns', async () => {
      const time = clock();
      const store = createStore(t, { retentionDays: 30, now: time.now });
      const { conversation } = await store.appendUserTurn(alice, { text: 'q' });
      const expected = Math.floor(time.now().getTime() / 1000) + 30 * day;
      const row = await documents.send(
        new GetCommand({
          TableName: t.tables.conversations,
          Key: { ownerId: 'acme#alice', conversationId: conversation.conversationId },
        }),
      );
      const turn = await documents.send(
        new GetCommand({
          TableName: t.tables.turns,
          Key: { conversationKey: `acme#alice#${conversation.conversationId}`, seq: 1 },
        }),
      );
      expect(row.Item?.expiresAt).toBe(expected);
      expect(turn.Item).toBeDefined();
      expect(turn.Item?.expiresAt).toBeUndefined();
    });

    it('keeps every turn while the conversation is active and expires it whole after its last activity', async () => {
      const time = clock();
      const store = createStore(t, { retentionDays: 30, now: time.now });
      const { conversation } = await store.appendUserTurn(alice, { text: 'old' });
      const { conversationId } = conversation;
      time.advance(20 * day * 1000);
      await store.appendUserTurn(alice, { conversationId, text: 'newer' });
      // 35 days after the first turn, 15 after the last activity.
      time.advance(15 * day * 1000);
      const { turns } = await createStore(t, { now: time.now }).loadConversation(
        alice,
        conversationId,
      );
      expect(turns.map((turn) => turn.text)).toEqual(['old', 'newer']);
      // 31 days after the last activity.
      time.advance(16 * day * 1000);
      await expect(store.getConversation(alice, conversationId)).rejects.toMatchObject({
        name: 'ConversationNotFoundError',
      });
    });
  });

  describe('listConversations', () => {
    it('pages through the owner conversations by last activity, newest first', async () => {
      const owner = { tenantId: 'acme', userId: 'lister' };
      const time = clock();
      const store = createStore(t, { now: time.now });
      const ids: string[] = [];
      for (let n = 0; n < 5; n++) {
        time.advance(1000);
        ids.push(
          (await store.appendUserTurn(owner, { text: `c${n}` })).conversation.conversationId,
        );
      }
      time.advance(1000);
      await store.appendUserTurn(owner, { conversationId: ids[1], text: 'bump' });
      // Renaming is not activity: it must not reorder the sidebar.
      await store.renameConversation(owner, ids[0] ?? '', 'renamed');

      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.listConversations(owner, {
          limit: 2,
          ...(cursor ? { cursor } : {}),
        });
        seen.push(...page.items.map((item) => item.conversationId));
        cursor = page.nextCursor;
        pages++;
      } while (cursor);
      expect(seen).toEqual([ids[1], ids[4], ids[3], ids[2], ids[0]]);
      expect(pages).toBeGreaterThanOrEqual(3);
    });

    it('rejects a cursor it did not issue', async () => {
      await expect(
        createStore(t).listConversations(alice, { cursor: 'not-a-cursor' }),
      ).rejects.toMatchObject({ name: 'InvalidCursorError', code: 'invalid_cursor' });
    });
  });

  describe('deleteConversation', () => {
    it('removes the conversation, every turn and every idempotency marker (more than one batch)', async () => {
      const store = createStore(t);
      const first = await store.appendUserTurn(alice, { text: 't0', clientMessageId: 'del-0' });
      const { conversationId } = first.conversation;
      for (let n = 1; n < 30; n++) {
        await store.appendUserTurn(alice, {
          conversationId,
          text: `t${n}`,
          clientMessageId: `del-${n}`,
        });
      }
      await store.deleteConversation(alice, conversationId);

      await expect(store.loadConversation(alice, conversationId)).rejects.toMatchObject({
        name: 'ConversationNotFoundError',
      });
      const remaining = await documents.send(
        new QueryCommand({
          TableName: t.tables.turns,
          KeyConditionExpression: 'conversationKey = :key',
          ExpressionAttributeValues: { ':key': `acme#alice#${conversationId}` },
        }),
      );
      expect(remaining.Items).toEqual([]);
      // The markers are gone too: the same clientMessageId now starts a new conversation.
      const again = await createStore(t, { clientRequestTokens: false }).appendUserTurn(alice, {
        text: 't0',
        clientMessageId: 'del-0',
      });
      expect(again.duplicate).toBe(false);
      expect(again.conversation.conversationId).not.toBe(conversationId);
      await expect(store.deleteConversation(alice, conversationId)).rejects.toMatchObject({
        name: 'ConversationNotFoundError',
      });
    });
  });

  describe('stop requests', () => {
    it('flags a stop for the answer it names, without bumping the version', async () => {
      const store = createStore(t);
      const { conversation } = await store.appendUserTurn(alice, { text: 'q' });
      const { conversationId } = conversation;
      expect(await store.isStopRequested(alice, conversationId, 1)).toBe(false);
      await store.requestStop(alice, conversationId, 1);
      await store.requestStop(alice, conversationId, 1);
      expect(await store.isStopRequested(alice, conversationId, 1)).toBe(true);
      expect((await store.getConversation(alice, conversationId)).version).toBe(
        conversation.version,
      );
    });

    // Before: a stop was a time, and it stopped every generation that started before it — the
    // next message's too, when the stop for the previous answer landed after it began.
    it('never reaches a later answer, whenever it lands', async () => {
      const store = createStore(t);
      const first = await store.appendUserTurn(alice, { text: 'q1' });
      const { conversationId } = first.conversation;
      await store.appendAssistantTurn(alice, {
        conversationId,
        inquiryId: first.turn.inquiryId,
        kind: 'answer',
        text: 'a1',
        status: 'complete',
      });
      const later = await store.appendUserTurn(alice, { conversationId, text: 'q2' });
      await store.requestStop(alice, conversationId, first.turn.seq);
      expect(await store.isStopRequested(alice, conversationId, later.turn.seq)).toBe(false);
      await store.requestStop(alice, conversationId, later.turn.seq);
      expect(await store.isStopRequested(alice, conversationId, later.turn.seq)).toBe(true);
    });

    it('refuses a stop for a turn the conversation does not have yet, writing nothing', async () => {
      const store = createStore(t);
      const { conversation } = await store.appendUserTurn(alice, { text: 'q' });
      const { conversationId } = conversation;
      await expect(store.requestStop(alice, conversationId, 3)).rejects.toMatchObject({
        name: 'TurnNotFoundError',
        code: 'turn_not_found',
      });
      // Seq 3 will be the next message's: it must start unstopped.
      await store.appendAssistantTurn(alice, {
        conversationId,
        inquiryId: conversation.latestInquiryId ?? '',
        kind: 'answer',
        text: 'a',
        status: 'complete',
      });
      const next = await store.appendUserTurn(alice, { conversationId, text: 'q2' });
      expect(next.turn.seq).toBe(3);
      expect(await store.isStopRequested(alice, conversationId, 3)).toBe(false);
    });
  });

  it('stores feedback only on an answer turn; on another turn the commit changes nothing', async () => {
    const store = createStore(t);
    const { conversation, turn } = await store.appendUserTurn(alice, { text: 'VPNが切れる' });
    const { conversationId } = conversation;
    await store.appendAssistantTurn(alice, {
      conversationId,
      inquiryId: turn.inquiryId,
      kind: 'answer',
      text: '再接続してください',
      status: 'complete',
    });
    const feedback = { rating: 'up' as const, updatedAt: '2026-12-01T00:00:00.000Z' };
    const before = await store.getConversation(alice, conversationId);
    // The question: the turn's condition fails inside the versioned commit.
    await expect(store.recordFeedback(alice, conversationId, 1, feedback)).rejects.toMatchObject({
      name: 'TurnNotFoundError',
      code: 'turn_not_found',
    });
    expect((await store.getConversation(alice, conversationId)).version).toBe(before.version);
    const rated = await store.recordFeedback(alice, conversationId, 2, feedback);
    expect(rated.version).toBe(before.version + 1);
    const { turns } = await store.loadConversation(alice, conversationId);
    expect(turns.map((stored) => stored.feedback)).toEqual([undefined, feedback]);
  });

  it('answers not-found for an id that is not a conversation id', async () => {
    await expect(createStore(t).loadConversation(alice, '../etc')).rejects.toMatchObject({
      name: 'ConversationNotFoundError',
    });
  });
});

/** The notices an answer can carry at most (ADR 0033): every text at its cap, in 4-byte characters. */
function maximalNotices() {
  const wide = (length: number) => '𠮷'.repeat(length);
  const issue = (id: number) => ({
    id: `${id}`,
    title: wide(10_000),
    note: wide(10_000),
    workaround: wide(10_000),
    author: wide(10_000),
    at: wide(10_000),
    link: `https://example.com/${wide(ANSWER_NOTICE_LIMITS.link - 20)}`,
  });
  const notices = answerNoticesOf(
    { topic: wide(10_000), inquiries: 99, staff: 99, since: wide(10_000) },
    Array.from({ length: ANSWER_NOTICE_LIMITS.knownIssues + 2 }, (_, index) => issue(index)),
  );
  expect(Buffer.byteLength(JSON.stringify(notices))).toBeGreaterThan(
    ANSWER_NOTICES_MAX_BYTES * 0.8,
  );
  return notices;
}
