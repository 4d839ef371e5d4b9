import { createContext, useContext, useEffect, useReducer, useRef, useState } from 'react';
import type { HandoffLanguage } from '../../../functions/contract/handoff.js';
import { ApiError } from '../api/api-error.js';
import type { HandoffApi } from '../api/create-handoff-api.js';
import { keepHandoffSummary, loadKeptHandoffSummary } from '../handoff/handoff-storage.js';
import {
  type HandoffFailure,
  type HandoffSummaryAction,
  type HandoffSummaryState,
  handoffSummaryReducer,
  initialHandoffSummaryState,
} from '../handoff/handoff-summary-reducer.js';

/** What the hand-off action needs from the app: the route, and the open conversation once stored. */
export interface HandoffSummaries {
  readonly api: HandoffApi;
  readonly conversationId?: string;
}

export const HandoffContext = createContext<HandoffSummaries | undefined>(undefined);

/** The open conversation's hand-off summaries, or undefined outside the signed-in app. */
export function useHandoffContext(): HandoffSummaries | undefined {
  return useContext(HandoffContext);
}

export interface HandoffSummaryPanelState {
  readonly state: HandoffSummaryState;
  readonly dispatch: (action: HandoffSummaryAction) => void;
  /** Asks for a new summary, replacing the kept one. */
  regenerate(): void;
}

/**
 * One inquiry's hand-off summary: the one kept in this tab (a reload finds it as staff left it),
 * else a new one streamed in `language` when the panel opens. Every edit is kept; unmounting
 * aborts a summary still arriving.
 */
export function useHandoffSummary(
  api: HandoffApi,
  conversationId: string,
  inquiryId: string,
  language: HandoffLanguage,
): HandoffSummaryPanelState {
  const [kept] = useState(() => loadKeptHandoffSummary(conversationId, inquiryId));
  const [state, dispatch] = useReducer(handoffSummaryReducer, language, (initial) =>
    kept
      ? handoffSummaryReducer(initialHandoffSummaryState(initial), { type: 'restore', ...kept })
      : initialHandoffSummaryState(initial),
  );
  // 0: show the kept summary; each increment streams a new one.
  const [run, setRun] = useState(kept ? 0 : 1);
  // Read when a summary is asked for: switching the UI's language later does not re-ask.
  const languageRef = useRef(language);
  languageRef.current = language;

  useEffect(() => {
    if (run === 0) return;
    const controller = new AbortController();
    const asked = languageRef.current;
    dispatch({ type: 'start', language: asked });
    api
      .summarize(conversationId, inquiryId, {
        body: { language: asked },
        signal: controller.signal,
        onEvent: (event) => dispatch({ type: 'event', event }),
      })
      .then(
        () => dispatch({ type: 'stream_ended' }),
        (error: unknown) => {
          if (controller.signal.aborted) return;
          dispatch({ type: 'stream_failed', failure: toHandoffFailure(error) });
        },
      );
    return () => controller.abort();
  }, [api, conversationId, inquiryId, run]);

  const { phase, fields, outcome, unverifiedLinks } = state;
  const summaryLanguage = state.language;
  useEffect(() => {
    // A summary that failed before anything arrived is not kept: a reload asks again.
    if (phase !== 'editing' || Object.values(fields).every((value) => value === '')) return;
    keepHandoffSummary(conversationId, inquiryId, {
      fields,
      language: summaryLanguage,
      ...(outcome ? { outcome } : {}),
      ...(unverifiedLinks ? { unverifiedLinks } : {}),
    });
  }, [conversationId, inquiryId, phase, fields, summaryLanguage, outcome, unverifiedLinks]);

  return { state, dispatch, regenerate: () => setRun((count) => count + 1) };
}

function toHandoffFailure(error: unknown): HandoffFailure {
  if (error instanceof ApiError) return { code: error.code, httpStatus: error.status };
  console.error('hand-off summary failed', error);
  return { code: 'unknown' };
}
