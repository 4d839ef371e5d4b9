import { describe, expect, it } from 'vitest';
import {
  ConversationNotFoundError,
  InvalidCursorError,
  TurnNotFoundError,
} from '../../functions/chat/errors.js';
import type { ConversationStore, Owner } from '../../functions/chat/ports.js';
import { isUlid } from '../../functions/contract/ids.js';
import { KnowledgeAlreadyPublishedError } from '../../functions/knowledge/errors.js';
import { MailDraftFullError } from '../../functions/mail-draft/errors.js';

/**
 * The `ConversationStore` behaviours every implementation must show, as one suite run against
 * each (test/adapters/conversation-store-conformance.test.ts): the DynamoDB store on DynamoDB
 * Local and the in-memory store the in-process tests use, so the fake cannot drift from the
 * real one. Concurrency (conditional commits racing) is DynamoDB's alone and stays in
 * test/adapters/dynamodb/.
 * @example
 * describeConversationStore('the in-memory store', async () => createInMemoryConversationStore());
 */
export function describeConversationStore(
  name: string,
  createStore: () => Promise<ConversationStore>,
): void {
  // Owners unique per run: the DynamoDB tables are shared by the cases of one file.
  const run = Math.random().toString(36).slice(2, 8);
  let owners = 0;
  const newOwner = (): Owner => ({ tenantId: 'acme', userId: `${run}-user-${++owners}` });
  const stranger: Owner = { tenantId: 'acme', userId: `${run}-stranger` };
  const later = () => new Promise((resolve) => setTimeout(resolve, 5));

  async function answered(store: ConversationStore, owner: Owner, text: string) {
    const question = await store.appendUserTurn(owner, { text });
    const { conversationId } = question.conversation;
    const answer = await store.appendAssistantTurn(owner, {
      conversationId,
      inquiryId: question.turn.inquiryId,
      kind: 'answer',
      answersSeq: question.turn.seq,
      text: 'answer',
      status: 'complete',
    });
    return { conversationId, question, answer };
  }

  describe(`ConversationStore conformance: ${name}`, () => {
    it('creates a conversation with a ULID id, titled from the first message, at version 1', async () => {
      const store = await createStore();
      const owner = newOwner();
      const created = await store.appendUserTurn(owner, { text: 'VPNにつながらない' });
      expect(isUlid(created.conversation.conversationId)).toBe(true);
      expect(created.conversation).toMatchObject({
        title: 'VPNにつながらない',
        version: 1,
        turnCount: 1,
      });
      expect(created.turn).toMatchObject({
        seq: 1,
        role: 'user',
        kind: 'question',
        status: 'complete',
      });
      expect(created.duplicate).toBe(false);
    });

    it('numbers turns in commit order and bumps the version with every append', async () => {
      const store = await createStore();
      const owner = newOwner();
      const { conversationId, answer } = await answered(store, owner, 'プリンター');
      expect(answer.conversation).toMatchObject({ version: 2, turnCount: 2 });
      const next = await store.appendUserTurn(owner, { conversationId, text: 'まだ動かない' });
      expect([next.turn.seq, next.conversation.version]).toEqual([3, 3]);
      const { conversation, turns } = await store.loadConversation(owner, conversationId);
      expect(turns.map((turn) => [turn.seq, turn.role])).toEqual([
        [1, 'user'],
        [2, 'assistant'],
        [3, 'user'],
      ]);
      expect(conversation.version).toBe(3);
      expect((await store.getConversation(owner, conversationId)).version).toBe(3);
    });

    it('returns the earlier turn for a repeated clientMessageId instead of a second one', async () => {
      const store = await createStore();
      const owner = newOwner();
      const first = await store.appendUserTurn(owner, {
        text: 'Wi-Fi',
        clientMessageId: 'client-message-1',
      });
      const again = await store.appendUserTurn(owner, {
        text: 'Wi-Fi',
        clientMessageId: 'client-message-1',
      });
      expect(again.duplicate).toBe(true);
      expect(again.turn.seq).toBe(first.turn.seq);
      expect(again.conversation.conversationId).toBe(first.conversation.conversationId);
      const { turns } = await store.loadConversation(owner, first.conversation.conversationId);
      expect(turns).toHaveLength(1);
    });

    it('marks the turn being answered and clears the mark with its answer', async () => {
      const store = await createStore();
      const owner = newOwner();
      const until = new Date(Date.now() + 60_000);
      const question = await store.appendUserTurn(owner, {
        text: 'Teams',
        generation: { holder: 'request-1', until },
      });
      expect(question.conversation.answering).toMatchObject({
        seq: 1,
        inquiryId: question.turn.inquiryId,
        until: until.toISOString(),
      });
      const answer = await store.appendAssistantTurn(owner, {
        conversationId: question.conversation.conversationId,
        inquiryId: question.turn.inquiryId,
        kind: 'answer',
        answersSeq: 1,
        text: 'answer',
        status: 'complete',
      });
      expect(answer.conversation.answering).toBeUndefined();
    });

    it("treats another owner's conversation, and a malformed id, exactly as a missing one", async () => {
      const store = await createStore();
      const owner = newOwner();
      const { conversationId } = await answered(store, owner, 'Box');
      for (const id of [conversationId, 'not-a-conversation-id']) {
        const attempts: [string, () => Promise<unknown>][] = [
          ['get', () => store.getConversation(stranger, id)],
          ['load', () => store.loadConversation(stranger, id)],
          ['append', () => store.appendUserTurn(stranger, { conversationId: id, text: 'x' })],
          ['rename', () => store.renameConversation(stranger, id, 'stolen')],
          ['delete', () => store.deleteConversation(stranger, id)],
          ['stop', () => store.requestStop(stranger, id, 1)],
          [
            'feedback',
            () => store.recordFeedback(stranger, id, 2, { rating: 'up', updatedAt: 'now' }),
          ],
        ];
        for (const [operation, attempt] of attempts) {
          await expect(attempt(), `${operation} ${id}`).rejects.toBeInstanceOf(
            ConversationNotFoundError,
          );
        }
      }
      expect((await store.loadConversation(owner, conversationId)).turns).toHaveLength(2);
      expect((await store.listConversations(stranger)).items).toEqual([]);
    });

    it('lists newest activity first and pages with a cursor, without repeats', async () => {
      const store = await createStore();
      const owner = newOwner();
      const ids: string[] = [];
      for (const text of ['one', 'two', 'three']) {
        ids.push((await store.appendUserTurn(owner, { text })).conversation.conversationId);
        await later();
      }
      const first = await store.listConversations(owner, { limit: 2 });
      expect(first.items.map((item) => item.conversationId)).toEqual([ids[2], ids[1]]);
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = await store.listConversations(owner, {
        limit: 2,
        cursor: first.nextCursor,
      });
      expect(second.items.map((item) => item.conversationId)).toEqual([ids[0]]);
      expect(second.nextCursor).toBeUndefined();
      // Activity moves a conversation to the top.
      await store.appendUserTurn(owner, { conversationId: ids[0], text: 'again' });
      expect(
        (await store.listConversations(owner)).items.map((item) => item.conversationId),
      ).toEqual([ids[0], ids[2], ids[1]]);
    });

    it('refuses a cursor it did not issue', async () => {
      const store = await createStore();
      await expect(
        store.listConversations(newOwner(), { cursor: 'not-a-cursor' }),
      ).rejects.toBeInstanceOf(InvalidCursorError);
    });

    it('searches titles and messages for every word, ignoring case and width', async () => {
      const store = await createStore();
      const owner = newOwner();
      const vpn = (await store.appendUserTurn(owner, { text: 'VPNにつながらない' })).conversation;
      await later();
      const teams = (await store.appendUserTurn(owner, { text: 'Teamsで音が出ない' })).conversation;
      await store.appendUserTurn(owner, {
        conversationId: teams.conversationId,
        text: 'ＶＰＮ経由だと途切れます',
      });
      const found = async (query: string) =>
        (await store.listConversations(owner, { query })).items.map((item) => item.conversationId);
      expect(await found('vpn')).toEqual([teams.conversationId, vpn.conversationId]);
      expect(await found('teams 途切れ')).toEqual([teams.conversationId]);
      expect(await found('teams プリンター')).toEqual([]);
      await store.renameConversation(owner, vpn.conversationId, '3F 複合機');
      expect(await found('複合機')).toEqual([vpn.conversationId]);
    });

    it('renames and records feedback with a version bump that keeps the sidebar order', async () => {
      const store = await createStore();
      const owner = newOwner();
      const { conversationId, answer } = await answered(store, owner, 'Outlook');
      await later();
      const renamed = await store.renameConversation(owner, conversationId, 'メール');
      expect(renamed).toMatchObject({ title: 'メール', version: 3 });
      expect(renamed.updatedAt).toBe(answer.conversation.updatedAt);
      const feedback = { rating: 'up' as const, updatedAt: new Date().toISOString() };
      const rated = await store.recordFeedback(owner, conversationId, 2, feedback);
      expect(rated.version).toBe(4);
      expect(rated.updatedAt).toBe(answer.conversation.updatedAt);
      const { turns } = await store.loadConversation(owner, conversationId);
      expect(turns.map((turn) => turn.feedback)).toEqual([undefined, feedback]);
    });

    it('records feedback only on an answer turn', async () => {
      const store = await createStore();
      const owner = newOwner();
      const { conversationId } = await answered(store, owner, 'Zoom');
      const feedback = { rating: 'down' as const, updatedAt: new Date().toISOString() };
      await expect(store.recordFeedback(owner, conversationId, 1, feedback)).rejects.toBeInstanceOf(
        TurnNotFoundError,
      );
      await expect(store.recordFeedback(owner, conversationId, 9, feedback)).rejects.toBeInstanceOf(
        TurnNotFoundError,
      );
      expect((await store.getConversation(owner, conversationId)).version).toBe(2);
    });

    it('appends mail draft versions and counts copies and opens, each a version bump that keeps the sidebar order', async () => {
      const store = await createStore();
      const owner = newOwner();
      const { conversationId, answer } = await answered(store, owner, 'Teams');
      await later();
      const edit = { text: '短くしました', origin: 'edit' as const, createdAt: 'a' };
      const shorter = {
        text: 'Shorter',
        origin: 'shorter' as const,
        createdAt: 'b',
        unverified_links: ['http://evil.example'],
      };
      const first = await store.recordMailDraft(owner, conversationId, 2, {
        kind: 'version',
        version: edit,
        maxVersions: 10,
        versionsSeen: 0,
      });
      expect(first.version).toBe(3);
      expect(first.versionNumber).toBe(2);
      expect(first.updatedAt).toBe(answer.conversation.updatedAt);
      // A caller that saw none stored (loaded before the edit) still gets the next number.
      const second = await store.recordMailDraft(owner, conversationId, 2, {
        kind: 'version',
        version: shorter,
        maxVersions: 10,
        versionsSeen: 0,
      });
      expect(second.versionNumber).toBe(3);
      await store.recordMailDraft(owner, conversationId, 2, { kind: 'action', action: 'copy' });
      await store.recordMailDraft(owner, conversationId, 2, { kind: 'action', action: 'copy' });
      const opened = await store.recordMailDraft(owner, conversationId, 2, {
        kind: 'action',
        action: 'open_in_mail',
      });
      expect(opened.version).toBe(7);
      // Read back (a fresh load, not only the cache) with the answer's original untouched.
      const { turns } = await store.loadConversation(owner, conversationId);
      expect(turns[1]).toMatchObject({
        text: 'answer',
        mailDraftVersions: [edit, shorter],
        mailDraftCopies: 2,
        mailDraftMailOpens: 1,
      });
      expect(turns[0]?.mailDraftVersions).toBeUndefined();
    });

    it('numbers concurrent mail draft versions uniquely, in the order they were stored', async () => {
      const store = await createStore();
      const owner = newOwner();
      const { conversationId } = await answered(store, owner, 'Outlook');
      // Five refinements that all loaded the answer before any was stored.
      const stored = await Promise.all(
        ['a', 'b', 'c', 'd', 'e'].map((text) =>
          store.recordMailDraft(owner, conversationId, 2, {
            kind: 'version',
            version: { text, origin: 'shorter', createdAt: text },
            maxVersions: 10,
            versionsSeen: 0,
          }),
        ),
      );
      const numbers = stored.map((result) => result.versionNumber);
      expect([...numbers].sort()).toEqual([2, 3, 4, 5, 6]);
      // Each number is the version's place in the stored list (the original is 1).
      const { turns } = await store.loadConversation(owner, conversationId);
      const texts = turns[1]?.mailDraftVersions?.map((version) => version.text) ?? [];
      stored.forEach((result, index) => {
        expect(texts[(result.versionNumber ?? 0) - 2]).toBe(['a', 'b', 'c', 'd', 'e'][index]);
      });
    });

    it('refuses a mail draft version beyond the limit and on a turn that is no answer, without a version bump', async () => {
      const store = await createStore();
      const owner = newOwner();
      const { conversationId } = await answered(store, owner, 'Excel');
      const version = (text: string) => ({
        kind: 'version' as const,
        version: { text, origin: 'edit' as const, createdAt: 'now' },
        maxVersions: 2,
        versionsSeen: 0,
      });
      await store.recordMailDraft(owner, conversationId, 2, version('one'));
      await store.recordMailDraft(owner, conversationId, 2, version('two'));
      await expect(
        store.recordMailDraft(owner, conversationId, 2, version('three')),
      ).rejects.toBeInstanceOf(MailDraftFullError);
      await expect(
        store.recordMailDraft(owner, conversationId, 1, version('on a question')),
      ).rejects.toBeInstanceOf(TurnNotFoundError);
      await expect(
        store.recordMailDraft(owner, conversationId, 9, { kind: 'action', action: 'copy' }),
      ).rejects.toBeInstanceOf(TurnNotFoundError);
      await expect(
        store.recordMailDraft(stranger, conversationId, 2, { kind: 'action', action: 'copy' }),
      ).rejects.toBeInstanceOf(ConversationNotFoundError);
      const { conversation, turns } = await store.loadConversation(owner, conversationId);
      expect(conversation.version).toBe(4);
      expect(turns[1]?.mailDraftVersions?.map((stored) => stored.text)).toEqual(['one', 'two']);
    });

    it('stops only the answer it names, without a version bump, and never a turn not stored yet', async () => {
      const store = await createStore();
      const owner = newOwner();
      const { conversationId } = await answered(store, owner, 'Excel');
      await store.requestStop(owner, conversationId, 1);
      expect(await store.isStopRequested(owner, conversationId, 1)).toBe(true);
      expect(await store.isStopRequested(owner, conversationId, 3)).toBe(false);
      await expect(store.requestStop(owner, conversationId, 3)).rejects.toBeInstanceOf(
        TurnNotFoundError,
      );
      expect((await store.getConversation(owner, conversationId)).version).toBe(2);
    });

    it('records one knowledge ticket per inquiry', async () => {
      const store = await createStore();
      const owner = newOwner();
      const { conversationId, question } = await answered(store, owner, 'Badge printer');
      const published = {
        inquiryId: question.turn.inquiryId,
        issueId: '900001',
        subject: 'Badge printer prints blank badges',
        restricted: false,
        publishedAt: new Date().toISOString(),
      };
      const recorded = await store.recordPublishedKnowledge(owner, conversationId, published);
      expect(recorded.version).toBe(3);
      expect(recorded.knowledge).toEqual([published]);
      await expect(
        store.recordPublishedKnowledge(owner, conversationId, { ...published, issueId: '900002' }),
      ).rejects.toBeInstanceOf(KnowledgeAlreadyPublishedError);
    });

    it('deletes a conversation with its turns', async () => {
      const store = await createStore();
      const owner = newOwner();
      const { conversationId } = await answered(store, owner, 'Slack');
      await store.deleteConversation(owner, conversationId);
      await expect(store.loadConversation(owner, conversationId)).rejects.toBeInstanceOf(
        ConversationNotFoundError,
      );
      expect((await store.listConversations(owner)).items).toEqual([]);
    });
  });
}
