import type { AttachmentRef } from '../../../functions/contract/attachments.js';
import type { ChatEvent } from '../../../functions/contract/chat-events.js';
import { ApiError } from '../api/api-error.js';
import { readChatStream } from '../chat/read-chat-stream.js';
import type { ChatStoreAction } from '../state/chat-store-reducer.js';
import { toBubbleError } from './to-bubble-error.js';

export interface ChatRequestInput {
  /** Store key of the conversation: its id, or a draft key for a new one. */
  readonly key: string;
  readonly conversationId?: string;
  /** The question; empty when the attachments carry the inquiry (a screenshot alone). */
  readonly message: string;
  readonly clientMessageId: string;
  /** Sent as `attachmentIds`; an edit sends the ones it keeps (`[]`: none). */
  readonly attachments?: readonly AttachmentRef[];
  /** `new`: start a new inquiry even while a clarification awaits its reply. */
  readonly inquiry?: 'new';
  /** A regenerate or edit: the seq of the latest user turn, which this message replaces. */
  readonly supersedes?: number;
  readonly requestId: string;
  readonly signal: AbortSignal;
}

export interface ChatRequestDeps {
  readonly apiBase: string;
  readonly apiFetch: typeof fetch;
  readonly dispatch: (action: ChatStoreAction) => void;
  /** A draft conversation got its id from `meta`. */
  readonly onAdopted: (draftKey: string, conversationId: string) => void;
  /** `meta` named the stored user turn this request is answering (what a stop names). */
  readonly onUserSeq?: (userSeq: number) => void;
}

/**
 * One `POST /chat`: feeds every validated event into the store under the conversation's key,
 * and always leaves the bubble in a final state — result, error, stopped or cut off.
 */
export async function runChatRequest(
  deps: ChatRequestDeps,
  input: ChatRequestInput,
): Promise<void> {
  const { dispatch } = deps;
  const { requestId, signal } = input;
  let key = input.key;
  let finished = false;
  let sawEvent = false;

  dispatch({
    type: 'conversation',
    key,
    action: {
      type: 'send',
      requestId,
      message: input.message,
      clientMessageId: input.clientMessageId,
      ...(input.supersedes !== undefined ? { supersedes: input.supersedes } : {}),
      ...(input.attachments !== undefined ? { attachments: input.attachments } : {}),
    },
  });

  const onEvent = (event: ChatEvent) => {
    sawEvent = true;
    if (event.event === 'meta' && event.data.conversationId !== key) {
      const draftKey = key;
      key = event.data.conversationId;
      dispatch({ type: 'adopt', from: draftKey, to: key });
      deps.onAdopted(draftKey, key);
    }
    if (event.event === 'meta' && event.data.userSeq !== undefined) {
      deps.onUserSeq?.(event.data.userSeq);
    }
    if (event.event === 'result' || event.event === 'error') finished = true;
    dispatch({ type: 'conversation', key, action: { type: 'event', requestId, event } });
  };

  try {
    await readChatStream({
      url: `${deps.apiBase}/chat`,
      // Serialised by the reader; the API fetch hashes the exact bytes for the edge.
      body: {
        conversationId: input.conversationId,
        ...(input.message !== '' ? { message: input.message } : {}),
        ...(input.attachments !== undefined
          ? { attachmentIds: input.attachments.map((attachment) => attachment.id) }
          : {}),
        clientMessageId: input.clientMessageId,
        ...(input.inquiry ? { inquiry: input.inquiry } : {}),
        ...(input.supersedes !== undefined ? { supersedes: input.supersedes } : {}),
      },
      signal,
      fetch: deps.apiFetch,
      onEvent,
    });
  } catch (error) {
    if (!signal.aborted && !finished) {
      const failure = toBubbleError(error, sawEvent);
      if (!(error instanceof ApiError)) console.error('chat stream failed', error);
      dispatch({
        type: 'conversation',
        key,
        action: { type: 'request_failed', requestId, error: failure },
      });
      finished = true;
    }
  }
  if (!finished) {
    dispatch({
      type: 'conversation',
      key,
      action: { type: 'stream_ended', requestId, stopped: signal.aborted },
    });
  }
}
