import { describe, expect, it } from 'vitest';
import type { ConversationStore } from '../../functions/chat/ports.js';
import type { PublishKnowledgeRequest } from '../../functions/contract/knowledge.js';
import { catchUpKnowledgeSync } from '../../functions/knowledge/owed-sync.js';
import type {
  IssueNumbers,
  KnowledgeDocuments,
  PendingSync,
  SyncBacklog,
} from '../../functions/knowledge/ports.js';
import {
  type PublishDependencies,
  publishTicket,
} from '../../functions/knowledge/publish-ticket.js';
import type { TicketDocumentFiles } from '../../functions/knowledge/ticket-document.js';
import { alice, results } from '../support/chat-core-harness.js';
import { createInMemoryConversationStore } from '../support/in-memory-conversation-store.js';
import { silentLog } from '../support/silent-log.js';

/**
 * The publish protocol: the order of its writes, and that every failure leaves either a whole
 * published ticket or nothing.
 */

function recordingDocuments(
  failures: { write?: Error; record?: Error; sync?: Error; syncRunning?: boolean } = {},
) {
  const log: string[] = [];
  const stored = new Map<string, string>();
  const documents: KnowledgeDocuments = {
    async write(files: TicketDocumentFiles) {
      log.push(`put ${files.sidecarName}`);
      stored.set(files.sidecarName, files.sidecar);
      if (failures.write) throw failures.write;
      log.push(`put ${files.documentName}`);
      stored.set(files.documentName, files.document);
    },
    async remove(files: TicketDocumentFiles) {
      log.push(`delete ${files.documentName}`, `delete ${files.sidecarName}`);
      stored.delete(files.documentName);
      stored.delete(files.sidecarName);
    },
    async startSync() {
      log.push('sync');
      if (failures.sync) throw failures.sync;
      return failures.syncRunning ? 'pending' : 'started';
    },
    uploadedCategories: async () => [],
  };
  return { documents, log, stored };
}

/** The owed-sync mark in memory, with the conditional clear of the DynamoDB one. */
function recordingBacklog(options: { markFails?: Error } = {}) {
  let mark: PendingSync | undefined;
  const backlog: SyncBacklog = {
    async markPending(at) {
      if (options.markFails) throw options.markFails;
      mark = {
        pendingSince: mark?.pendingSince ?? at.toISOString(),
        marks: (mark?.marks ?? 0) + 1,
      };
    },
    read: async () => mark,
    async clear(seen) {
      if (mark?.marks === seen.marks) mark = undefined;
    },
  };
  return { backlog, mark: () => mark };
}

function counter(): IssueNumbers {
  let next = 900_000;
  return { next: async () => String(++next) };
}

async function solvedInquiry(store = createInMemoryConversationStore()) {
  const question = await store.appendUserTurn(alice, { text: 'プリンターで印刷できない' });
  const { conversationId } = question.conversation;
  const { inquiryId } = question.turn;
  await store.appendAssistantTurn(alice, {
    conversationId,
    inquiryId,
    kind: 'answer',
    text: 'advice',
    result: results('スプーラーを再起動', ['1001']) as never,
    status: 'complete',
  });
  return { store, conversationId, inquiryId };
}

const draft: Omit<PublishKnowledgeRequest, 'conversationId' | 'inquiryId'> = {
  subject: 'プリンターで印刷できない',
  category: 'Printer',
  inquiry: '印刷ジョブが止まる',
  resolution: ['スプーラーを再起動'],
  restricted: false,
  desk: 'all',
};

const now = () => new Date('2026-12-01T10:00:00Z');

/** The scrub's counts of a draft without personal data. */
const none = { name: 0, email: 0, phone: 0, secret: 0, myNumber: 0, card: 0 };

/** Publishing's dependencies with a fresh counter and, unless given, a fresh owed-sync mark. */
const dependenciesOf = (
  store: ConversationStore,
  documents: KnowledgeDocuments,
  syncBacklog: SyncBacklog = recordingBacklog().backlog,
): PublishDependencies => ({
  store,
  documents,
  issueNumbers: counter(),
  syncBacklog,
  now,
  log: silentLog,
});

/** Publishes `draft` for the inquiry as alice, with a fresh counter. */
const publishDraft = (
  store: ConversationStore,
  documents: KnowledgeDocuments,
  conversationId: string,
  inquiryId: string,
) =>
  publishTicket(alice, { conversationId, inquiryId, ...draft }, dependenciesOf(store, documents));

describe('publishing a ticket', () => {
  it('writes the sidecar, then the document, records the ticket, then starts a sync', async () => {
    const { store, conversationId, inquiryId } = await solvedInquiry();
    const { documents, log, stored } = recordingDocuments();
    const request: PublishKnowledgeRequest = { conversationId, inquiryId, ...draft };
    const published = await publishTicket(alice, request, dependenciesOf(store, documents));
    expect(published).toEqual({
      issueId: '900001',
      ingestion: 'started',
      personalDataRemoved: none,
    });
    expect(log).toEqual(['put 900001.md.metadata.json', 'put 900001.md', 'sync']);
    expect(stored.get('900001.md')).toContain('# プリンターで印刷できない');
    const { conversation } = await store.loadConversation(alice, conversationId);
    expect(conversation.knowledge).toEqual([
      {
        inquiryId,
        issueId: '900001',
        subject: draft.subject,
        restricted: false,
        publishedAt: '2026-12-01T10:00:00.000Z',
      },
    ]);
  });

  it('refuses a second publish of the same inquiry with the first ticket’s number', async () => {
    const { store, conversationId, inquiryId } = await solvedInquiry();
    const { documents, log } = recordingDocuments();
    const dependencies = dependenciesOf(store, documents);
    await publishTicket(alice, { conversationId, inquiryId, ...draft }, dependencies);
    await expect(
      publishTicket(alice, { conversationId, inquiryId, ...draft }, dependencies),
    ).rejects.toMatchObject({ code: 'already_published', issueId: '900001' });
    expect(log.filter((entry) => entry.startsWith('put'))).toHaveLength(2);
  });

  it('removes what it wrote when the document write fails, and records nothing', async () => {
    const { store, conversationId, inquiryId } = await solvedInquiry();
    const { documents, stored } = recordingDocuments({ write: new Error('S3 down') });
    await expect(publishDraft(store, documents, conversationId, inquiryId)).rejects.toMatchObject({
      code: 'knowledge_store_unavailable',
    });
    expect(stored.size).toBe(0);
    expect((await store.loadConversation(alice, conversationId)).conversation.knowledge).toBe(
      undefined,
    );
  });

  it('removes the documents when the record is refused (the conversation was deleted meanwhile)', async () => {
    const { store, conversationId, inquiryId } = await solvedInquiry();
    const { documents, stored } = recordingDocuments();
    const deletingStore = {
      ...store,
      async recordPublishedKnowledge(...args: Parameters<typeof store.recordPublishedKnowledge>) {
        await store.deleteConversation(alice, conversationId);
        return store.recordPublishedKnowledge(...args);
      },
    };
    await expect(
      publishDraft(deletingStore, documents, conversationId, inquiryId),
    ).rejects.toMatchObject({ name: 'ConversationNotFoundError', code: 'not_found' });
    expect(stored.size).toBe(0);
  });

  it('keeps the documents and owes them a sync when the record’s outcome is unknown', async () => {
    const { store, conversationId, inquiryId } = await solvedInquiry();
    const { documents, stored, log } = recordingDocuments();
    const { backlog, mark } = recordingBacklog();
    // A timeout after DynamoDB may have committed: no status code, so no definite refusal.
    const unsureStore = {
      ...store,
      async recordPublishedKnowledge(...args: Parameters<typeof store.recordPublishedKnowledge>) {
        await store.recordPublishedKnowledge(...args);
        throw new Error('socket hang up');
      },
    };
    await expect(
      publishTicket(
        alice,
        { conversationId, inquiryId, ...draft },
        dependenciesOf(unsureStore, documents, backlog),
      ),
    ).rejects.toThrow('socket hang up');
    expect(stored.size).toBe(2);
    expect(log).not.toContain('sync');
    expect(mark()).toEqual({ pendingSince: '2026-12-01T10:00:00.000Z', marks: 1 });
  });

  it('keeps a recorded ticket when the sync cannot start: ingestion pending, a sync owed', async () => {
    for (const failure of [{ sync: new Error('throttled') }, { syncRunning: true }]) {
      const { store, conversationId, inquiryId } = await solvedInquiry();
      const { documents, stored } = recordingDocuments(failure);
      const { backlog, mark } = recordingBacklog();
      const published = await publishTicket(
        alice,
        { conversationId, inquiryId, ...draft },
        dependenciesOf(store, documents, backlog),
      );
      expect(published.ingestion).toBe('pending');
      expect(stored.size).toBe(2);
      expect(mark()).toEqual({ pendingSince: '2026-12-01T10:00:00.000Z', marks: 1 });
    }
  });

  it('owes no sync when it started, and still publishes when the owed sync cannot be noted', async () => {
    const started = await solvedInquiry();
    const { backlog, mark } = recordingBacklog();
    await publishTicket(
      alice,
      { conversationId: started.conversationId, inquiryId: started.inquiryId, ...draft },
      dependenciesOf(started.store, recordingDocuments().documents, backlog),
    );
    expect(mark()).toBeUndefined();

    const pending = await solvedInquiry();
    const published = await publishTicket(
      alice,
      { conversationId: pending.conversationId, inquiryId: pending.inquiryId, ...draft },
      dependenciesOf(
        pending.store,
        recordingDocuments({ syncRunning: true }).documents,
        recordingBacklog({ markFails: new Error('table unavailable') }).backlog,
      ),
    );
    expect(published).toEqual({
      issueId: '900001',
      ingestion: 'pending',
      personalDataRemoved: none,
    });
  });

  it('scrubs the edited draft again: what the editor typed back never reaches the documents or the record', async () => {
    const store = createInMemoryConversationStore();
    const question = await store.appendUserTurn(alice, {
      text: '経理部の佐藤さんがプリンターで印刷できない',
    });
    const { conversationId } = question.conversation;
    const { inquiryId } = question.turn;
    await store.appendAssistantTurn(alice, {
      conversationId,
      inquiryId,
      kind: 'answer',
      text: 'advice',
      result: results('スプーラーを再起動', ['1001']) as never,
      status: 'complete',
    });
    const { documents, stored } = recordingDocuments();
    const published = await publishTicket(
      alice,
      {
        conversationId,
        inquiryId,
        ...draft,
        subject: '佐藤のプリンターで印刷できない',
        inquiry: '佐藤（sato@example.co.jp、03-1234-5678）の印刷ジョブが止まる。alice が対応',
        resolution: ['スプーラーを再起動', '社員番号 E123456 の PC を確認'],
      },
      {
        ...dependenciesOf(store, documents),
        scrubSettings: { patterns: [{ kind: 'employeeId', pattern: 'E\\d{6}' }] },
      },
    );
    expect(published.personalDataRemoved).toEqual({
      name: 3,
      email: 1,
      phone: 1,
      secret: 0,
      myNumber: 0,
      card: 0,
      employeeId: 1,
    });
    const document = stored.get('900001.md') ?? '';
    expect(document).toContain('# [氏名]のプリンターで印刷できない');
    expect(document).toContain('[氏名]（[メール]、[電話]）の印刷ジョブが止まる。[氏名] が対応');
    expect(document).toContain('社員番号 [employeeId] の PC');
    for (const leak of ['佐藤', 'sato@', '03-1234-5678', 'alice', 'E123456'])
      expect([...stored.values()].join('\n')).not.toContain(leak);
    const { conversation } = await store.loadConversation(alice, conversationId);
    expect(conversation.knowledge?.[0]?.subject).toBe('[氏名]のプリンターで印刷できない');
  });

  it('refuses an unsolved inquiry, an unknown inquiry and another owner’s conversation, writing nothing', async () => {
    const store = createInMemoryConversationStore();
    const question = await store.appendUserTurn(alice, { text: 'ログインできない' });
    const { conversationId } = question.conversation;
    const { documents, log } = recordingDocuments();
    const dependencies = dependenciesOf(store, documents);
    await expect(
      publishTicket(
        alice,
        { conversationId, inquiryId: question.turn.inquiryId, ...draft },
        dependencies,
      ),
    ).rejects.toMatchObject({ code: 'inquiry_not_solved' });
    await store.appendAssistantTurn(alice, {
      conversationId,
      inquiryId: question.turn.inquiryId,
      kind: 'clarification',
      text: 'どのシステム？',
      result: {
        response_type: 'clarification',
        general_advice: '',
        question: 'どの?',
        options: ['A', 'B'],
      },
      status: 'complete',
    });
    await expect(
      publishTicket(
        alice,
        { conversationId, inquiryId: question.turn.inquiryId, ...draft },
        dependencies,
      ),
    ).rejects.toMatchObject({ code: 'inquiry_not_solved' });
    await expect(
      publishTicket(
        alice,
        { conversationId, inquiryId: '01JUNKNOWN0000000000000000', ...draft },
        dependencies,
      ),
    ).rejects.toMatchObject({ code: 'inquiry_not_found' });
    await expect(
      publishTicket(
        { tenantId: alice.tenantId, userId: 'mallory' },
        { conversationId, inquiryId: question.turn.inquiryId, ...draft },
        dependencies,
      ),
    ).rejects.toMatchObject({ name: 'ConversationNotFoundError', code: 'not_found' });
    expect(log).toEqual([]);
  });
});

describe('the sync catch-up', () => {
  it('makes no Bedrock call when no sync is owed', async () => {
    const { documents, log } = recordingDocuments();
    const { backlog } = recordingBacklog();
    expect(await catchUpKnowledgeSync({ syncBacklog: backlog, documents })).toEqual({
      outcome: 'idle',
    });
    expect(log).toEqual([]);
  });

  it('starts the owed sync and clears the mark; keeps it while a sync still runs', async () => {
    const { backlog, mark } = recordingBacklog();
    await backlog.markPending(new Date('2026-12-01T10:00:00Z'));
    await backlog.markPending(new Date('2026-12-01T10:03:00Z'));

    const running = recordingDocuments({ syncRunning: true });
    expect(
      await catchUpKnowledgeSync({ syncBacklog: backlog, documents: running.documents }),
    ).toEqual({
      outcome: 'still_pending',
      pendingSince: '2026-12-01T10:00:00.000Z',
    });
    expect(mark()).toBeDefined();

    const free = recordingDocuments();
    expect(await catchUpKnowledgeSync({ syncBacklog: backlog, documents: free.documents })).toEqual(
      {
        outcome: 'started',
        pendingSince: '2026-12-01T10:00:00.000Z',
      },
    );
    expect(free.log).toEqual(['sync']);
    expect(mark()).toBeUndefined();
  });

  it('keeps the mark when a publish marked it again while the sync was being started', async () => {
    const { backlog, mark } = recordingBacklog();
    await backlog.markPending(new Date('2026-12-01T10:00:00Z'));
    const documents: Pick<KnowledgeDocuments, 'startSync'> = {
      async startSync() {
        // The same instant as the first mark: the count, not the time, tells them apart.
        await backlog.markPending(new Date('2026-12-01T10:00:00Z'));
        return 'started';
      },
    };
    await catchUpKnowledgeSync({ syncBacklog: backlog, documents });
    expect(mark()).toEqual({ pendingSince: '2026-12-01T10:00:00.000Z', marks: 2 });
  });

  it('fails loudly when the sync cannot be started at all, keeping the mark', async () => {
    const { backlog, mark } = recordingBacklog();
    await backlog.markPending(new Date('2026-12-01T10:00:00Z'));
    const { documents } = recordingDocuments({ sync: new Error('AccessDenied') });
    await expect(catchUpKnowledgeSync({ syncBacklog: backlog, documents })).rejects.toThrow(
      'AccessDenied',
    );
    expect(mark()).toBeDefined();
  });
});
