import type * as z from 'zod';
import { type ConversationStore, InvalidCursorError } from '../chat/ports.js';
import {
  type ConversationDetail,
  type ConversationList,
  type ConversationSummary,
  conversationSummarySchema,
  listConversationsQuerySchema,
  renameConversationSchema,
  turnSchema,
} from '../contract/conversations.js';
import {
  type ApiRequest,
  HttpError,
  type HttpResponse,
  jsonResponse,
  parseJsonBody,
  validateBody,
} from './http.js';

/** The ETag of a conversation is its version: every change bumps it. */
const etagOf = (version: number) => `"${version}"`;

/** The conversation routes: list, get (ETag/304), rename, delete, stop. */
export function createConversationRoutes(store: ConversationStore) {
  return {
    async list(request: ApiRequest): Promise<HttpResponse> {
      const query = listConversationsQuerySchema.safeParse(request.query);
      if (!query.success) {
        if (query.error.issues.some((issue) => issue.path[0] === 'cursor'))
          throw new InvalidCursorError();
        throw new HttpError(400, 'bad_request', 'limit must be 1-100');
      }
      const page = await store.listConversations(request.owner, query.data);
      const body: ConversationList = {
        items: page.items.map(toSummaryBody),
        nextCursor: page.nextCursor,
      };
      return jsonResponse(200, body);
    },

    async get(request: ApiRequest, conversationId: string): Promise<HttpResponse> {
      const current = await store.getConversation(request.owner, conversationId);
      const etag = etagOf(current.version);
      if (request.headers['if-none-match'] === etag)
        return { statusCode: 304, headers: { etag }, body: '' };
      const { conversation, turns } = await store.loadConversation(request.owner, conversationId);
      const body: ConversationDetail = {
        conversationId,
        title: conversation.title,
        version: conversation.version,
        turns: turns.map((turn) => pickDeclared(turnSchema, turn)),
      };
      return jsonResponse(200, body, { etag: etagOf(conversation.version) });
    },

    async rename(request: ApiRequest, conversationId: string): Promise<HttpResponse> {
      const { title } = validateBody(renameConversationSchema, parseJsonBody(request));
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

function toSummaryBody(conversation: ConversationSummary): ConversationSummary {
  return pickDeclared(conversationSummarySchema, conversation);
}

/**
 * The fields the contract declares, nothing else: the store's own fields (the open inquiry, keys)
 * never leak into a response, and a field added to the contract is sent without another list here.
 */
function pickDeclared<S extends z.ZodObject>(schema: S, value: object): z.infer<S> {
  const source = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(schema.shape)
      .filter((key) => source[key] !== undefined)
      .map((key) => [key, source[key]]),
  ) as z.infer<S>;
}
