import {
  type HandoffStreamEvent,
  handoffStreamEventSchemas,
} from '../../../functions/contract/chat-events.js';
import type { HandoffRequest } from '../../../functions/contract/handoff.js';
import { readApiEventStream } from '../chat/read-chat-stream.js';

/** The hand-off summary route (ADR 0024). `fetch` is the identity-adding one from `createApiFetch`. */
export interface HandoffApi {
  /**
   * `POST …/inquiries/{inquiryId}/handoff`: streams the summary, calling `onEvent` for `meta`,
   * `progress`, `summary_text`, `summary_item`, `summary` and `error`. Resolves when the stream
   * ends; rejects with `ApiError` when the server refused before the stream (400, 404, 429 …) or
   * the network failed, and with the abort reason when `signal` aborts.
   */
  summarize(
    conversationId: string,
    inquiryId: string,
    options: {
      readonly body: HandoffRequest;
      readonly signal: AbortSignal;
      readonly onEvent: (event: HandoffStreamEvent) => void;
    },
  ): Promise<void>;
}

export function createHandoffApi(apiBase: string, apiFetch: typeof fetch): HandoffApi {
  return {
    async summarize(conversationId, inquiryId, { body, signal, onEvent }) {
      const path = `/conversations/${encodeURIComponent(conversationId)}/inquiries/${encodeURIComponent(inquiryId)}/handoff`;
      await readApiEventStream({
        events: handoffStreamEventSchemas,
        url: `${apiBase}${path}`,
        body,
        signal,
        fetch: apiFetch,
        onEvent,
      });
    },
  };
}
