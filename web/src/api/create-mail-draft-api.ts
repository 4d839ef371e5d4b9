import {
  type MailDraftRefineStreamEvent,
  mailDraftRefineEventSchemas,
} from '../../../functions/contract/chat-events.js';
import {
  type MailDraftActionRequest,
  type MailDraftRefineRequest,
  type StoredMailDraft,
  storedMailDraftSchema,
} from '../../../functions/contract/mail-draft.js';
import { readApiEventStream } from '../chat/read-chat-stream.js';
import { ApiError, callApi } from './api-error.js';

/**
 * The e-mail draft routes of one answer (ADR 0023): store an edit, stream a refinement, count a
 * copy or an open in the mail client. `fetch` is the identity-adding one from `createApiFetch`;
 * every refusal rejects with an {@link ApiError} carrying the server's code.
 */
export interface MailDraftApi {
  /** `PUT …/turns/{seq}/mail-draft`: the edit as a new version. */
  edit(conversationId: string, seq: number, text: string): Promise<StoredMailDraft>;
  /**
   * `POST …/turns/{seq}/mail-draft/refine`: streams `meta`, `progress`, `mail_draft_token`,
   * `mail_draft_version` or `error` to `onEvent`; rejects with `ApiError` when refused before the
   * stream (409 full, 429 budget …) or the network failed.
   */
  refine(
    conversationId: string,
    seq: number,
    body: MailDraftRefineRequest,
    options: {
      readonly signal: AbortSignal;
      readonly onEvent: (event: MailDraftRefineStreamEvent) => void;
    },
  ): Promise<void>;
  /** `POST …/turns/{seq}/mail-draft/actions`: counts a copy or an open in the mail client. */
  action(
    conversationId: string,
    seq: number,
    body: MailDraftActionRequest,
  ): Promise<StoredMailDraft>;
}

export function createMailDraftApi(apiBase: string, apiFetch: typeof fetch): MailDraftApi {
  const pathOf = (conversationId: string, seq: number, rest = '') =>
    `${apiBase}/conversations/${encodeURIComponent(conversationId)}/turns/${seq}/mail-draft${rest}`;
  const send = async (url: string, method: string, body: unknown) => {
    const response = await callApi(apiFetch, url, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return storedMailDraftSchema.parse(await response.json());
  };
  return {
    edit: (conversationId, seq, text) => send(pathOf(conversationId, seq), 'PUT', { text }),
    action: (conversationId, seq, body) =>
      send(pathOf(conversationId, seq, '/actions'), 'POST', body),
    async refine(conversationId, seq, body, { signal, onEvent }) {
      await readApiEventStream({
        events: mailDraftRefineEventSchemas,
        url: pathOf(conversationId, seq, '/refine'),
        body,
        signal,
        fetch: apiFetch,
        onEvent,
      });
    },
  };
}
