import * as z from 'zod';
import type { ConversationStore, Turn } from '../chat/conversation-store.js';
import { type ApiRequest, parseJsonBody } from './api-request.js';
import { HttpError } from './http-error.js';
import { type HttpResponse, jsonResponse } from './json-response.js';
import { validateBody } from './validate-body.js';

const renameSchema = z.object({ title: z.string().trim().min(1).max(200) }).strict();
const listQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(30),
  cursor: z.string().max(2000).optional(),
});

/** The ETag of a conversation is its version: every change bumps it. */
const etagOf = (version: number) => `"${version}"`;

/** The conversation routes: list, get (ETag/304), rename, delete, stop. */
export function createConversationRoutes(store: ConversationStore) {
  return {
    async list(request: ApiRequest): Promise<HttpResponse> {
      const query = listQuerySchema.safeParse(request.query);
      if (!query.success) throw new HttpError(400, 'bad_request', 'limit must be 1-100');
      const page = await store.listConversations(request.owner, query.data);
      return jsonResponse(200, {
        items: page.items.map(toSummaryBody),
        nextCursor: page.nextCursor,
      });
    },

    async get(request: ApiRequest, conversationId: string): Promise<HttpResponse> {
      const current = await store.getConversation(request.owner, conversationId);
      const etag = etagOf(current.version);
      if (request.headers['if-none-match'] === etag)
        return { statusCode: 304, headers: { etag }, body: '' };
      const { conversation, turns } = await store.loadConversation(request.owner, conversationId);
      return jsonResponse(
        200,
        {
          conversationId,
          title: conversation.title,
          version: conversation.version,
          turns: turns.map(toTurnBody),
        },
        { etag: etagOf(conversation.version) },
      );
    },

    async rename(request: ApiRequest, conversationId: string): Promise<HttpResponse> {
      const { title } = validateBody(renameSchema, parseJsonBody(request));
      const renamed = await store.renameConversation(request.owner, conversationId, title);
      return jsonResponse(200, toSummaryBody(renamed), { etag: etagOf(renamed.version) });
    },

    async remove(request: ApiRequest, conversationId: string): Promise<HttpResponse> {
      await store.deleteConversation(request.owner, conversationId);
      return { statusCode: 204, headers: {}, body: '' };
    },

    async stop(request: ApiRequest, conversationId: string): Promise<HttpResponse> {
      await store.requestStop(request.owner, conversationId);
      return jsonResponse(202, { stopping: true });
    },
  };
}

function toSummaryBody(conversation: Awaited<ReturnType<ConversationStore['getConversation']>>) {
  const { conversationId, title, createdAt, updatedAt, version, turnCount } = conversation;
  return { conversationId, title, createdAt, updatedAt, version, turnCount };
}

function toTurnBody(turn: Turn) {
  const { seq, role, kind, inquiryId, text, result, status, clientMessageId, createdAt, offline } =
    turn;
  // clientMessageId lets the page retry a failed answer with the same id after a reload.
  return { seq, role, kind, inquiryId, text, result, status, clientMessageId, createdAt, offline };
}
