import { type ReactNode, useEffect, useMemo, useState } from 'react';
import {
  INSIGHTS_WINDOWS,
  type Insights,
  type InsightsWindow,
  insightsSchema,
} from '../../../functions/contract/insights.js';
import type { Caller } from '../../../functions/contract/knowledge.js';
import { ApiError, callApi } from '../api/api-error.js';
import { createApiFetch } from '../api/create-api-fetch.js';
import { createKnowledgeApi } from '../api/create-knowledge-api.js';
import { CHAT_PATH } from '../app/app-page.js';
import type { AuthSession } from '../auth/auth-session.js';
import { LanguageSwitcher } from '../components/language-switcher.js';
import { describeError, isRetryableFailure } from '../errors/describe-error.js';
import type { Locale } from '../i18n/messages.js';
import { GapDraftContext, type GapDraftContextValue } from './gap-knowledge-draft.js';
import { useInsightsText } from './insights-messages.js';
import { InsightsSections } from './insights-sections.js';
import { SurgesAndKnownIssues } from './surges-section.js';
import './insights.css';

interface InsightsAppProps {
  readonly apiBase: string;
  readonly session: AuthSession;
  readonly identity: ReactNode;
  readonly onLocaleChange: (locale: Locale) => void;
}

type LoadState =
  | { readonly name: 'loading' }
  | { readonly name: 'failed'; readonly error: ApiError }
  | { readonly name: 'ready'; readonly insights: Insights };

/**
 * The service-desk lead's page (`/insights`, issue #28): activity, knowledge gaps, what helped,
 * knowledge capture and the latest feedback evaluation for the last 30 or 90 days, from
 * `GET /api/insights`. The default export is what `React.lazy` loads; a staff member who is not a
 * lead gets the server's 403 explained ("only for service-desk leads").
 */
export default function InsightsApp({
  apiBase,
  session,
  identity,
  onLocaleChange,
}: InsightsAppProps) {
  const text = useInsightsText();
  const apiFetch = useMemo(() => createApiFetch(session), [session]);
  const api = useMemo(() => createInsightsApi(apiBase, apiFetch), [apiBase, apiFetch]);
  const gapDraft = useGapDraftContext(apiBase, apiFetch);
  // A new object for every read, so "load again" asks again for the same window.
  const [read, setRead] = useState<{ readonly days: InsightsWindow }>({ days: 30 });
  const { days } = read;
  const [state, setState] = useState<LoadState>({ name: 'loading' });

  useEffect(() => {
    document.title = text.t('title');
  }, [text.t]);

  useEffect(() => {
    const controller = new AbortController();
    setState({ name: 'loading' });
    api.read(read.days, { signal: controller.signal }).then(
      (insights) => setState({ name: 'ready', insights }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        console.error(error);
        setState({
          name: 'failed',
          error:
            error instanceof ApiError
              ? error
              : new ApiError(0, 'unknown', String(error), { cause: error }),
        });
      },
    );
    return () => controller.abort();
  }, [api, read]);

  return (
    <div className="app insights-app">
      <header className="app-header">
        <h1 className="app-header__title">{text.t('title')}</h1>
        <div className="app-header__tools">
          <a className="button button--ghost" href={CHAT_PATH}>
            {text.t('backToChat')}
          </a>
          <LanguageSwitcher onChange={onLocaleChange} />
          {identity}
        </div>
      </header>
      <main className="insights">
        {state.name === 'failed' ? (
          <LoadFailure error={state.error} onRetry={() => setRead({ days })} />
        ) : (
          <>
            <div className="insights__toolbar">
              <fieldset className="insights__window">
                <legend className="visually-hidden">{text.t('window')}</legend>
                {INSIGHTS_WINDOWS.map((window) => (
                  <button
                    key={window}
                    type="button"
                    className={`button button--small${window === days ? ' button--primary' : ''}`}
                    aria-pressed={window === days}
                    onClick={() => setRead({ days: window })}
                  >
                    {text.t('lastDays', { days: window })}
                  </button>
                ))}
              </fieldset>
              {state.name === 'ready' && (
                <p className="insights__generated">
                  {text.t('generatedAt', { time: text.formatDateTime(state.insights.generatedAt) })}
                </p>
              )}
            </div>
            {state.name === 'loading' ? (
              <p role="status">{text.t('loading')}</p>
            ) : (
              <GapDraftContext.Provider value={gapDraft}>
                <SurgesAndKnownIssues
                  surges={state.insights.surges ?? []}
                  apiBase={apiBase}
                  apiFetch={apiFetch}
                  text={text}
                />
                <InsightsSections insights={state.insights} text={text} />
              </GapDraftContext.Provider>
            )}
          </>
        )}
      </main>
    </div>
  );
}

/**
 * What the gaps' "draft knowledge" buttons need: the API and `GET /api/me` (whether the lead is
 * also a knowledge editor, the form's categories and link allow-list). A failed `GET /api/me`
 * leaves the buttons out; the figures still show.
 */
function useGapDraftContext(apiBase: string, apiFetch: typeof fetch): GapDraftContextValue {
  const [caller, setCaller] = useState<Caller>();
  useEffect(() => {
    let current = true;
    createKnowledgeApi(apiBase, apiFetch)
      .caller()
      .then(
        (answer) => {
          if (current) setCaller(answer);
        },
        (error: unknown) =>
          console.warn('GET /api/me failed; no knowledge drafts from gaps', error),
      );
    return () => {
      current = false;
    };
  }, [apiBase, apiFetch]);
  return useMemo(() => ({ apiBase, apiFetch, caller }), [apiBase, apiFetch, caller]);
}

/** A refused or failed read: the 403 for non-leads, anything else with "load again" where it helps. */
function LoadFailure({
  error,
  onRetry,
}: {
  readonly error: ApiError;
  readonly onRetry: () => void;
}) {
  const text = useInsightsText();
  const failure = { code: error.code, httpStatus: error.status };
  return (
    <div className="insights__failure" role="alert">
      <p>{describeError(failure, text.locale)}</p>
      {isRetryableFailure(failure) && (
        <button type="button" className="button" onClick={onRetry}>
          {text.t('retry')}
        </button>
      )}
    </div>
  );
}

/** The insights page's one route (issue #28); loaded with the page, never by the chat. */
interface InsightsApi {
  /**
   * `GET /api/insights?days=…`: the lead's figures for the window ending today (UTC). Rejects
   * with an `ApiError` — `not_a_service_desk_lead` (403) for anyone who is not a lead.
   */
  read(days: InsightsWindow, options?: { readonly signal?: AbortSignal }): Promise<Insights>;
}

function createInsightsApi(apiBase: string, apiFetch: typeof fetch): InsightsApi {
  return {
    async read(days, options = {}) {
      const response = await callApi(apiFetch, `${apiBase}/insights?days=${days}`, {
        cache: 'no-store',
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return insightsSchema.parse(await response.json());
    },
  };
}
