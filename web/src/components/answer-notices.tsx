import { memo } from 'react';
import { hrefDomains } from '../../../functions/contract/links.js';
import type { KnownIssueNotice, SurgeNotice } from '../../../functions/contract/surges.js';
import { useI18n } from '../i18n/i18n-context.js';

interface AnswerNoticesProps {
  readonly surge?: SurgeNotice;
  readonly knownIssues?: readonly KnownIssueNotice[];
  /** Stored with an earlier answer: a known issue says it is as of that answer. */
  readonly fromHistory?: boolean;
}

/**
 * What the desk knows right now, above the answer (ADR 0033): a lead's known issues first — the
 * title, what to tell requesters, the workaround and link, who published it and when — then a
 * surge notice (the topic and counts, never who asked). Plain text: a lead's words are rendered
 * as text, and the link (checked against the allowed domains when it was published) as one
 * anchor. The same banners from the stream and, after a reload, from the stored answer; there a
 * known issue says it was the notice when the answer was written (it may have been closed since).
 */
export const AnswerNotices = memo(function AnswerNotices({
  surge,
  knownIssues,
  fromHistory = false,
}: AnswerNoticesProps) {
  const { t, formatDateTime } = useI18n();
  if (!surge && (knownIssues?.length ?? 0) === 0) return null;
  return (
    <div className="answer-notices">
      {knownIssues?.map((issue) => (
        <section
          key={issue.id}
          className="answer-notice answer-notice--known-issue"
          aria-label={`${t('knownIssue')}: ${issue.title}`}
        >
          <p className="answer-notice__title">
            <span className="badge badge--known-issue">{t('knownIssue')}</span> {issue.title}
          </p>
          <p className="answer-notice__text">{issue.note}</p>
          {issue.workaround && (
            <p className="answer-notice__text">
              {t('knownIssueWorkaround')}: {issue.workaround}
            </p>
          )}
          {issue.link && hrefDomains(issue.link) && (
            <p className="answer-notice__text">
              {t('knownIssueLink')}:{' '}
              <a href={issue.link} target="_blank" rel="noopener noreferrer">
                {issue.link}
              </a>
            </p>
          )}
          <p className="answer-notice__by">
            {t('knownIssueBy', { author: issue.author, time: formatDateTime(issue.at) })}
          </p>
          {fromHistory && <p className="answer-notice__by">{t('knownIssueAsOfAnswer')}</p>}
        </section>
      ))}
      {surge && (
        <section className="answer-notice answer-notice--surge" role="status">
          <p className="answer-notice__title">
            {t('surgeNotice', {
              topic: surge.topic,
              inquiries: surge.inquiries,
              staff: surge.staff,
              since: formatDateTime(surge.since),
            })}
          </p>
          <p className="answer-notice__text">{t('surgeHint')}</p>
        </section>
      )}
    </div>
  );
});
