import { type FormEvent, useCallback, useEffect, useId, useState } from 'react';
import {
  type ActiveSurge,
  KNOWN_ISSUE_LIMITS,
  type KnownIssue,
  knownIssueListSchema,
} from '../../../functions/contract/surges.js';
import { ApiError, callApi } from '../api/api-error.js';
import type { InsightsText } from './insights-messages.js';

/**
 * The lead's view of what is happening now (ADR 0033): the active surges — topic, counts, the
 * count per slice of the window, scrubbed examples — and the known issues, with a form to publish
 * one (prefilled from a surge) and a button to close each. The server checks everything again
 * (leads only, lengths, links within the allowed domains, the end within seven days); its
 * message is shown beside the form.
 */
export function SurgesAndKnownIssues({
  surges,
  apiBase,
  apiFetch,
  text,
}: {
  readonly surges: readonly ActiveSurge[];
  readonly apiBase: string;
  readonly apiFetch: typeof fetch;
  readonly text: InsightsText;
}) {
  const [issues, setIssues] = useState<readonly KnownIssue[]>();
  const [matchesDraft, setMatchesDraft] = useState('');
  const load = useCallback(async () => {
    const response = await callApi(apiFetch, `${apiBase}/known-issues`, { cache: 'no-store' });
    setIssues(knownIssueListSchema.parse(await response.json()).knownIssues);
  }, [apiBase, apiFetch]);
  useEffect(() => {
    load().catch((error: unknown) => console.error('GET /api/known-issues failed', error));
  }, [load]);
  const surgesId = useId();
  const issuesId = useId();
  return (
    <>
      <section className="insights-section" aria-labelledby={surgesId}>
        <h2 id={surgesId} className="insights-section__title">
          {text.t('surges')}
        </h2>
        <p className="insights-section__hint">{text.t('surgesHint')}</p>
        {surges.length === 0 ? (
          <p>{text.t('noSurges')}</p>
        ) : (
          <ul className="insights-surges">
            {surges.map((surge) => (
              <li key={surge.topicKey} className="insights-surge">
                <h3 className="insights-surge__topic">{surge.topic}</h3>
                <p>
                  {text.t('surgeCounts', {
                    inquiries: text.integer(surge.inquiries),
                    staff: text.integer(surge.staff),
                    since: text.formatDateTime(surge.since),
                  })}
                </p>
                <SliceBars surge={surge} text={text} />
                {surge.examples.length > 0 && (
                  <ul className="insights-gap__examples" aria-label={text.t('examples')}>
                    {surge.examples.map((example, index) => (
                      // biome-ignore lint/suspicious/noArrayIndexKey: examples may repeat; order is stable
                      <li key={index}>{example}</li>
                    ))}
                  </ul>
                )}
                <button
                  type="button"
                  className="button button--small"
                  onClick={() => setMatchesDraft(surge.topic.replace(/\s*\(.*\)$/, ''))}
                >
                  {text.t('publishForSurge')}
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="insights-section" aria-labelledby={issuesId}>
        <h2 id={issuesId} className="insights-section__title">
          {text.t('knownIssues')}
        </h2>
        <p className="insights-section__hint">{text.t('knownIssuesHint')}</p>
        {issues !== undefined && issues.length === 0 && <p>{text.t('noKnownIssues')}</p>}
        {issues && issues.length > 0 && (
          <ul className="insights-known-issues">
            {issues.map((issue) => (
              <KnownIssueItem
                key={issue.id}
                issue={issue}
                text={text}
                onClose={async () => {
                  await callApi(apiFetch, `${apiBase}/known-issues/${issue.id}/close`, {
                    method: 'POST',
                  });
                  await load();
                }}
              />
            ))}
          </ul>
        )}
        <KnownIssueForm
          key={matchesDraft}
          initialMatches={matchesDraft}
          text={text}
          onPublish={async (body) => {
            const payload = JSON.stringify(body);
            await callApi(apiFetch, `${apiBase}/known-issues`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: payload,
            });
            await load();
          }}
        />
      </section>
    </>
  );
}

/** The count per slice as bars, with the figures as text for screen readers. */
function SliceBars({ surge, text }: { readonly surge: ActiveSurge; readonly text: InsightsText }) {
  const most = Math.max(1, ...surge.slices.map((slice) => slice.inquiries));
  const time = (iso: string) => text.formatDateTime(iso).split(' ').at(-1) ?? iso;
  return (
    <ol className="insights-surge__slices" aria-label={text.t('surgeOverTime')}>
      {surge.slices.map((slice) => (
        <li key={slice.at} className="insights-surge__slice">
          <span
            className="insights-surge__bar"
            style={{ blockSize: `${Math.round((slice.inquiries / most) * 100)}%` }}
            aria-hidden="true"
          />
          <span className="visually-hidden">
            {text.t('surgeSlice', { time: time(slice.at), count: slice.inquiries })}
          </span>
        </li>
      ))}
    </ol>
  );
}

function KnownIssueItem({
  issue,
  text,
  onClose,
}: {
  readonly issue: KnownIssue;
  readonly text: InsightsText;
  readonly onClose: () => Promise<void>;
}) {
  const [failure, setFailure] = useState<string>();
  return (
    <li className="insights-known-issue">
      <h3 className="insights-known-issue__title">{issue.title}</h3>
      <p>{issue.note}</p>
      {issue.workaround && <p>{issue.workaround}</p>}
      <p className="insights-known-issue__by">
        {text.t('knownIssueBy', {
          author: issue.author,
          time: text.formatDateTime(issue.at),
          endsAt: text.formatDateTime(issue.endsAt),
        })}
      </p>
      <button
        type="button"
        className="button button--small"
        aria-label={text.t('knownIssueCloseFor', { title: issue.title })}
        onClick={() =>
          onClose().catch((error: unknown) =>
            setFailure(error instanceof ApiError ? error.message : String(error)),
          )
        }
      >
        {text.t('knownIssueClose')}
      </button>
      {failure && (
        <p role="alert" className="insights-known-issue__failure">
          {text.t('knownIssueFailed', { message: failure })}
        </p>
      )}
    </li>
  );
}

interface KnownIssueBody {
  title: string;
  note: string;
  matches: string[];
  workaround?: string;
  link?: string;
  endsAt?: string;
}

function KnownIssueForm({
  initialMatches,
  text,
  onPublish,
}: {
  readonly initialMatches: string;
  readonly text: InsightsText;
  readonly onPublish: (body: KnownIssueBody) => Promise<void>;
}) {
  const [status, setStatus] = useState<
    { kind: 'published' } | { kind: 'failed'; message: string }
  >();
  const [busy, setBusy] = useState(false);
  const id = useId();
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const value = (name: string) => String(data.get(name) ?? '').trim();
    const endsAt = value('endsAt');
    const body: KnownIssueBody = {
      title: value('title'),
      note: value('note'),
      matches: value('matches')
        .split(/[,、，]/)
        .map((word) => word.trim())
        .filter(Boolean),
      ...(value('workaround') ? { workaround: value('workaround') } : {}),
      ...(value('link') ? { link: value('link') } : {}),
      ...(endsAt ? { endsAt: new Date(endsAt).toISOString() } : {}),
    };
    setBusy(true);
    try {
      await onPublish(body);
      form.reset();
      setStatus({ kind: 'published' });
    } catch (error) {
      setStatus({
        kind: 'failed',
        message: error instanceof ApiError ? error.message : String(error),
      });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="insights-known-issue-form" onSubmit={submit}>
      <label htmlFor={`${id}-title`}>{text.t('knownIssueTitle')}</label>
      <input id={`${id}-title`} name="title" required maxLength={KNOWN_ISSUE_LIMITS.title} />
      <label htmlFor={`${id}-note`}>{text.t('knownIssueNote')}</label>
      <textarea
        id={`${id}-note`}
        name="note"
        required
        maxLength={KNOWN_ISSUE_LIMITS.note}
        rows={3}
      />
      <label htmlFor={`${id}-matches`}>{text.t('knownIssueMatches')}</label>
      <input id={`${id}-matches`} name="matches" required defaultValue={initialMatches} />
      <label htmlFor={`${id}-workaround`}>{text.t('knownIssueWorkaround')}</label>
      <textarea
        id={`${id}-workaround`}
        name="workaround"
        maxLength={KNOWN_ISSUE_LIMITS.workaround}
        rows={2}
      />
      <label htmlFor={`${id}-link`}>{text.t('knownIssueLink')}</label>
      <input id={`${id}-link`} name="link" type="url" maxLength={KNOWN_ISSUE_LIMITS.link} />
      <label htmlFor={`${id}-endsAt`}>{text.t('knownIssueEndsAt')}</label>
      <input id={`${id}-endsAt`} name="endsAt" type="datetime-local" />
      <button type="submit" className="button button--primary" disabled={busy}>
        {text.t('knownIssuePublish')}
      </button>
      {status?.kind === 'published' && <p role="status">{text.t('knownIssuePublished')}</p>}
      {status?.kind === 'failed' && (
        <p role="alert" className="insights-known-issue__failure">
          {text.t('knownIssueFailed', { message: status.message })}
        </p>
      )}
    </form>
  );
}
