import { describe, expect, it } from 'vitest';
import type { ApiRequest } from '../../functions/api/http.js';
import type { AttachmentStore } from '../../functions/attachments/ports.js';
import { createConversationRoutes } from '../../functions/chat/conversation-routes.js';
import type { LogFields } from '../../functions/chat/log.js';
import type { ConversationStore, Owner } from '../../functions/chat/ports.js';
import type { AttachmentRef } from '../../functions/contract/attachments.js';
import { alice } from '../support/chat-core-harness.js';
import { createInMemoryConversationStore } from '../support/in-memory-conversation-store.js';

// `DELETE /api/conversations/{id}` and the attachments' bytes (ADR 0030): removed after the
// conversation, never before; a failure after it is logged and left to the lifecycle rule.

const image = (id: string): AttachmentRef => ({ id, type: 'image/png', size: 10 });

const requestOf = (owner: Owner): ApiRequest => ({
  method: 'DELETE',
  path: '/api/conversations/x',
  headers: {},
  query: {},
  rawBody: '',
  bodyBytes: Buffer.alloc(0),
  owner,
  canPublishKnowledge: false,
  canViewInsights: false,
  desks: ['all'],
  displayName: owner.userId,
  remainingTimeMs: () => 60_000,
});

async function setUp(options: {
  removeAttachments?: AttachmentStore['remove'];
  deleteConversation?: ConversationStore['deleteConversation'];
}) {
  const memory = createInMemoryConversationStore();
  const store: ConversationStore = {
    ...memory,
    ...(options.deleteConversation ? { deleteConversation: options.deleteConversation } : {}),
  };
  const first = await store.appendUserTurn(alice, {
    text: 'これが出ます',
    attachments: [image('01JAAAAAAAAAAAAAAAAAAAAAA1'), image('01JAAAAAAAAAAAAAAAAAAAAAA2')],
  });
  const conversationId = first.conversation.conversationId;
  // A regenerate keeps the same files: each id is removed once.
  await store.appendUserTurn(alice, {
    conversationId,
    text: 'これが出ます',
    supersedes: first.turn.seq,
    attachments: [image('01JAAAAAAAAAAAAAAAAAAAAAA1')],
  });
  const removed: string[][] = [];
  const warnings: { message: string; fields: LogFields | undefined }[] = [];
  const routes = createConversationRoutes(
    {
      now: () => new Date(),
      log: {
        info: () => undefined,
        warn: (message, fields) => warnings.push({ message, fields }),
        error: (message, fields) => warnings.push({ message, fields }),
      },
    },
    store,
    {
      attachments: {
        remove:
          options.removeAttachments ??
          (async (_owner, ids) => {
            removed.push([...ids]);
          }),
      },
    },
  );
  return { memory, routes, conversationId, removed, warnings };
}

describe('deleting a conversation', () => {
  it('removes its attachments once each, after the conversation is gone', async () => {
    const { memory, routes, conversationId, removed } = await setUp({});
    const response = await routes.remove(requestOf(alice), conversationId);
    expect(response.statusCode).toBe(204);
    expect(removed).toEqual([['01JAAAAAAAAAAAAAAAAAAAAAA1', '01JAAAAAAAAAAAAAAAAAAAAAA2']]);
    await expect(memory.getConversation(alice, conversationId)).rejects.toThrow();
  });

  it('keeps the files when the conversation could not be deleted', async () => {
    const failure = new Error('throttled');
    const { routes, conversationId, removed } = await setUp({
      deleteConversation: () => Promise.reject(failure),
    });
    await expect(routes.remove(requestOf(alice), conversationId)).rejects.toBe(failure);
    expect(removed).toEqual([]);
  });

  it('touches no file of a conversation the caller does not have', async () => {
    const { memory, routes, conversationId, removed } = await setUp({});
    await expect(
      routes.remove(requestOf({ tenantId: 't1', userId: 'mallory' }), conversationId),
    ).rejects.toThrow();
    expect(removed).toEqual([]);
    expect((await memory.getConversation(alice, conversationId)).conversationId).toBe(
      conversationId,
    );
  });

  it('answers 204 when the files cannot be removed, logging no id, owner or text', async () => {
    const { memory, routes, conversationId, warnings } = await setUp({
      removeAttachments: () =>
        Promise.reject(Object.assign(new Error('denied'), { name: 'AccessDenied' })),
    });
    const response = await routes.remove(requestOf(alice), conversationId);
    expect(response.statusCode).toBe(204);
    await expect(memory.getConversation(alice, conversationId)).rejects.toThrow();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields).toEqual({ error: 'AccessDenied', attachments: 2 });
    const logged = JSON.stringify(warnings);
    for (const secret of ['alice', conversationId, '01JAAAAAAAAAAAAAAAAAAAAAA1', 'これが出ます']) {
      expect(logged).not.toContain(secret);
    }
  });
});
