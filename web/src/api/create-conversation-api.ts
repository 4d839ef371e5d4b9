import * as z from 'zod';
import {
  answerFeedbackSchema,
  type ConversationDetail,
  type ConversationList,
  conversationDetailSchema,
  conversationListSchema,
  type FeedbackRequest,
  type StopRequest,
} from '../../../functions/contract/conversations.js';
import { callApi } from './api-error.js';

/** The conversation routes; `fetch` is the identity-adding one from `createApiFetch`. */
export interface ConversationApi {
  /**
   * One page, newest activity first; pass `nextCursor` back for the next. With `query`, only
   * conversations whose title or messages contain all its words.
   */
  list(cursor?: string, query?: string): Promise<ConversationList>;
  /** `undefined` when the server answers 304 for `knownVersion`. */
  get(conversationId: string, knownVersion?: number): Promise<ConversationDetail | undefined>;
  rename(conversationId: string, title: string): Promise<void>;
  remove(conversationId: string): Promise<void>;
  /** Stops the answer to user turn `userSeq` (`meta.userSeq` of its stream), and no other. */
  stop(conversationId: string, userSeq: number): Promise<void>;
  /** Stores (or replaces) the user's feedback on the answer turn `seq`. */
  feedback(conversationId: string, seq: number, body: FeedbackRequest): Promise<StoredFeedback>;
}

const storedFeedbackSchema = z.object({
  seq: z.number().int(),
  feedback: answerFeedbackSchema,
  version: z.number().int(),
});
export type StoredFeedback = z.infer<typeof storedFeedbackSchema>;

export function createConversationApi(apiBase: string, apiFetch: typeof fetch): ConversationApi {
  const call = (path: string, init: RequestInit = {}) =>
    callApi(apiFetch, `${apiBase}/conversations${path}`, init);
  const withId = (id: string) => `/${encodeURIComponent(id)}`;
  // The server's own ETag is echoed back verbatim: its quoting is the server's business.
  const etags = new Map<string, { version: number; etag: string }>();

  return {
    async list(cursor, query) {
      const params = new URLSearchParams({
        ...(cursor ? { cursor } : {}),
        ...(query ? { q: query } : {}),
      });
      const search = params.toString() ? `?${params}` : '';
      return conversationListSchema.parse(await (await call(search)).json());
    },
    async get(conversationId, knownVersion) {
      const cached = etags.get(conversationId);
      const headers: Record<string, string> =
        cached && cached.version === knownVersion ? { 'if-none-match': cached.etag } : {};
      const response = await call(withId(conversationId), { headers, cache: 'no-store' });
      if (response.status === 304) return undefined;
      const detail = conversationDetailSchema.parse(await response.json());
      const etag = response.headers.get('etag');
      if (etag) etags.set(conversationId, { version: detail.version, etag });
      return detail;
    },
    async rename(conversationId, title) {
      await call(withId(conversationId), {
        method: 'PATCH',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ title }),
      });
    },
    async remove(conversationId) {
      await call(withId(conversationId), { method: 'DELETE' });
    },
    async feedback(conversationId, seq, body) {
      const response = await call(`${withId(conversationId)}/turns/${seq}/feedback`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return storedFeedbackSchema.parse(await response.json());
    },
    async stop(conversationId, userSeq) {
      const body: StopRequest = { userSeq };
      await call(`${withId(conversationId)}/stop`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    },
  };
}
