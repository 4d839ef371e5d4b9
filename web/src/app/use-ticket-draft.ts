import { useCallback, useEffect, useReducer } from 'react';
import type { KnowledgeDraftStreamEvent } from '../../../functions/contract/chat-events.js';
import type { PublishKnowledgeResponse } from '../../../functions/contract/knowledge.js';
import { ApiError } from '../api/api-error.js';
import {
  type DraftFailure,
  initialTicketDraftState,
  type TicketDraftAction,
  type TicketDraftState,
  ticketDraftReducer,
} from '../knowledge/ticket-draft-reducer.js';
import type { ValidTicketDraft } from '../knowledge/validate-ticket-draft.js';

/**
 * Where one knowledge draft comes from and goes to: a staff member's own inquiry (the chat's
 * "Save as knowledge", ADR 0011) or a lead's solved gap example (the insights page, ADR 0022).
 * The form is the same; only the routes and what follows a publish differ.
 */
export interface TicketDraftTarget {
  /** Streams the draft into `onEvent`; rejects with `ApiError` when refused before the stream. */
  draft(options: {
    readonly signal: AbortSignal;
    readonly onEvent: (event: KnowledgeDraftStreamEvent) => void;
  }): Promise<void>;
  /** Publishes the validated ticket: `201 { issueId, ingestion, … }`, else an `ApiError`. */
  publish(ticket: ValidTicketDraft): Promise<PublishKnowledgeResponse>;
  /** After a 201, before the form closes. */
  published(ticket: ValidTicketDraft, response: PublishKnowledgeResponse): void;
  /** The server says the inquiry is published already (409, to the draft or the publish). */
  alreadyPublished(): void;
}

export interface TicketDraft {
  readonly state: TicketDraftState;
  readonly dispatch: (action: TicketDraftAction) => void;
  /** Sends the validated ticket; on 201 `onPublished` runs, otherwise the form shows why. */
  publish(ticket: ValidTicketDraft): void;
}

/**
 * One knowledge form: requests the draft when it mounts (and when `target.draft` changes: keep it
 * stable) and streams it into the form; unmounting (Cancel, Escape, publish) aborts a draft
 * still arriving.
 */
export function useTicketDraft(target: TicketDraftTarget, onPublished: () => void): TicketDraft {
  const [state, dispatch] = useReducer(ticketDraftReducer, initialTicketDraftState);
  const { draft, publish: send, published, alreadyPublished } = target;

  useEffect(() => {
    const controller = new AbortController();
    draft({
      signal: controller.signal,
      onEvent: (event) => dispatch({ type: 'event', event }),
    }).then(
      () => dispatch({ type: 'stream_ended' }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        dispatch({ type: 'stream_failed', failure: toDraftFailure(error) });
      },
    );
    return () => controller.abort();
  }, [draft]);

  const publish = useCallback(
    (ticket: ValidTicketDraft) => {
      dispatch({ type: 'publish_started' });
      send(ticket).then(
        (response) => {
          published(ticket, response);
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
    [send, published, alreadyPublished, onPublished],
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
