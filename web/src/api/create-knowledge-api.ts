import {
  type KnowledgeDraftStreamEvent,
  knowledgeDraftEventSchemas,
} from '../../../functions/contract/chat-events.js';
import {
  type Caller,
  callerSchema,
  type PublishKnowledgeRequest,
  type PublishKnowledgeResponse,
  publishKnowledgeResponseSchema,
} from '../../../functions/contract/knowledge.js';
import { readApiEventStream } from '../chat/read-chat-stream.js';
import { ApiError, callApi } from './api-error.js';

/**
 * The knowledge-capture routes (ADR 0011): who the caller is, the streamed ticket draft of a
 * solved inquiry, and publishing the edited draft. `fetch` is the identity-adding one from
 * `createApiFetch`. Every refusal rejects with an {@link ApiError} carrying the server's code.
 */
export interface KnowledgeApi {
  /**
   * `GET /api/me`: whether this staff member may publish knowledge and see insights; asked once
   * per client (every call shares the first answer).
   */
  caller(): Promise<Caller>;
  /**
   * `POST …/inquiries/{inquiryId}/knowledge-draft`: streams the model's draft, calling `onEvent`
   * for `meta`, `progress`, `draft_text`, `draft_step`, `draft` and `error`. Resolves when the
   * stream ends; rejects with `ApiError` when the server refused before the stream (403, 409 …)
   * or the network failed, and with the abort reason when `signal` aborts.
   */
  draft(
    conversationId: string,
    inquiryId: string,
    options: {
      readonly signal: AbortSignal;
      readonly onEvent: (event: KnowledgeDraftStreamEvent) => void;
    },
  ): Promise<void>;
  /** `POST /api/knowledge`: publishes the ticket; `201 { issueId, ingestion }`. */
  publish(request: PublishKnowledgeRequest): Promise<PublishKnowledgeResponse>;
}

export function createKnowledgeApi(apiBase: string, apiFetch: typeof fetch): KnowledgeApi {
  // Who the caller is does not change while this client lives (the app makes a new one for a new
  // identity), so knowledge capture and the insights link share one `GET /api/me`; a failed one
  // is forgotten, so the next ask tries again.
  let caller: Promise<Caller> | undefined;
  return {
    caller() {
      caller ??= (async () => {
        const response = await callApi(apiFetch, `${apiBase}/me`, { cache: 'no-store' });
        return callerSchema.parse(await response.json());
      })().catch((error: unknown) => {
        caller = undefined;
        throw error;
      });
      return caller;
    },
    async draft(conversationId, inquiryId, { signal, onEvent }) {
      const path = `/conversations/${encodeURIComponent(conversationId)}/inquiries/${encodeURIComponent(inquiryId)}/knowledge-draft`;
      // An empty JSON body, so the edge sees a hashed body like every other POST.
      await readApiEventStream({
        events: knowledgeDraftEventSchemas,
        url: `${apiBase}${path}`,
        body: {},
        signal,
        fetch: apiFetch,
        onEvent,
      });
    },
    async publish(request) {
      const response = await callApi(apiFetch, `${apiBase}/knowledge`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      });
      return publishKnowledgeResponseSchema.parse(await response.json());
    },
  };
}
