import { useCallback, useEffect, useReducer } from 'react';
import { ApiError } from '../api/api-error.js';
import {
  type DraftFailure,
  initialTicketDraftState,
  type TicketDraftAction,
  type TicketDraftState,
  ticketDraftReducer,
} from '../knowledge/ticket-draft-reducer.js';
import type { ValidTicketDraft } from '../knowledge/validate-ticket-draft.js';
import type { KnowledgeCapture } from './use-knowledge-capture.js';

export interface TicketDraft {
  readonly state: TicketDraftState;
  readonly dispatch: (action: TicketDraftAction) => void;
  /** Sends the validated ticket; on 201 `onPublished` runs, otherwise the form shows why. */
  publish(ticket: ValidTicketDraft): void;
}

/**
 * One "Save as knowledge" form: requests the draft when it mounts and streams it into the form;
 * unmounting (Cancel, Escape, publish) aborts a draft still arriving.
 */
export function useTicketDraft(
  capture: KnowledgeCapture,
  conversationId: string,
  inquiryId: string,
  onPublished: () => void,
): TicketDraft {
  const [state, dispatch] = useReducer(ticketDraftReducer, initialTicketDraftState);
  const { api } = capture;

  useEffect(() => {
    const controller = new AbortController();
    api
      .draft(conversationId, inquiryId, {
        signal: controller.signal,
        onEvent: (event) => dispatch({ type: 'event', event }),
      })
      .then(
        () => dispatch({ type: 'stream_ended' }),
        (error: unknown) => {
          if (controller.signal.aborted) return;
          dispatch({ type: 'stream_failed', failure: toDraftFailure(error) });
        },
      );
    return () => controller.abort();
  }, [api, conversationId, inquiryId]);

  const { published, alreadyPublished } = capture;
  const publish = useCallback(
    (ticket: ValidTicketDraft) => {
      dispatch({ type: 'publish_started' });
      api.publish({ conversationId, inquiryId, ...ticket }).then(
        (response) => {
          published(inquiryId, ticket, response);
          onPublished();
        },
        (error: unknown) => {
          const failure = toDraftFailure(error);
          // The badge learns the existing ticket's number from the reloaded conversation.
          if (failure.code === 'already_published') alreadyPublished();
          dispatch({ type: 'publish_failed', failure });
        },
      );
    },
    [api, conversationId, inquiryId, published, alreadyPublished, onPublished],
  );

  // A refusal before the stream may also say the inquiry is published already.
  const refusedAsPublished =
    state.shortfall?.kind === 'failed' && state.shortfall.failure.code === 'already_published';
  useEffect(() => {
    if (refusedAsPublished) alreadyPublished();
  }, [refusedAsPublished, alreadyPublished]);

  return { state, dispatch, publish };
}

function toDraftFailure(error: unknown): DraftFailure {
  if (error instanceof ApiError) {
    const { code, message, status, field, issueId } = error;
    return {
      code,
      message,
      httpStatus: status,
      ...(field !== undefined ? { field } : {}),
      ...(issueId !== undefined ? { issueId } : {}),
    };
  }
  console.error('knowledge capture failed', error);
  return { code: 'unknown', message: '' };
}
