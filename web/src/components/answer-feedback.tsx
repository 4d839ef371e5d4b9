import { useState } from 'react';
import type {
  AnswerFeedback,
  FeedbackReason,
  FeedbackRequest,
} from '../../../functions/contract/conversations.js';
import { MAX_FEEDBACK_COMMENT_LENGTH } from '../../../functions/contract/conversations.js';
import { ApiError } from '../api/api-error.js';
import { describeError } from '../errors/describe-error.js';
import { useI18n } from '../i18n/i18n-context.js';
import type { MessageKey } from '../i18n/messages.js';

/**
 * Feedback on one answer: 👍/👎 (with a reason on 👎) under the answer, and "this solved it" on
 * each ticket card. One stored feedback per answer, replaced as a whole by every post, so each
 * control sends the others' current state along with its own change.
 */

export type SendFeedback = (feedback: FeedbackRequest) => Promise<void>;

export interface AnswerFeedbackState {
  readonly stored?: AnswerFeedback;
  readonly pending: boolean;
  readonly error?: string;
  /** Sends `change` merged over the stored feedback (a rating is required; 👍 by default). */
  submit(change: Partial<FeedbackRequest>): void;
  /** "This solved it" on a ticket card, on or off. */
  toggleHelpful(issueId: string): void;
}

/** The feedback controls' shared state for one answer. */
export function useAnswerFeedback(
  stored: AnswerFeedback | undefined,
  send: SendFeedback,
): AnswerFeedbackState {
  const { locale } = useI18n();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string>();
  const submit = (change: Partial<FeedbackRequest>) => {
    if (pending) return;
    const rating = change.rating ?? stored?.rating ?? 'up';
    const next: FeedbackRequest = {
      rating,
      // A reason and comment belong to a 👎; switching to 👍 drops them.
      ...(rating === 'down'
        ? {
            reason: 'reason' in change ? change.reason : stored?.reason,
            comment: 'comment' in change ? change.comment : stored?.comment,
          }
        : {}),
      helpfulTicketIds: change.helpfulTicketIds ?? stored?.helpfulTicketIds ?? [],
    };
    setPending(true);
    setError(undefined);
    send(withoutEmpty(next))
      .catch((cause: unknown) =>
        setError(
          describeError(
            cause instanceof ApiError
              ? { code: cause.code, httpStatus: cause.status }
              : { code: 'unknown' },
            locale,
          ),
        ),
      )
      .finally(() => setPending(false));
  };
  return {
    stored,
    pending,
    error,
    submit,
    toggleHelpful(issueId) {
      const current = stored?.helpfulTicketIds ?? [];
      submit({
        helpfulTicketIds: current.includes(issueId)
          ? current.filter((id) => id !== issueId)
          : [...current, issueId],
      });
    },
  };
}

/** The API refuses empty optional fields; leave them out instead. */
function withoutEmpty(feedback: FeedbackRequest): FeedbackRequest {
  return Object.fromEntries(
    Object.entries(feedback).filter(
      ([, value]) =>
        value !== undefined && value !== '' && !(Array.isArray(value) && !value.length),
    ),
  ) as FeedbackRequest;
}

const REASONS: readonly { reason: FeedbackReason; label: MessageKey }[] = [
  { reason: 'wrong', label: 'feedbackReasonWrong' },
  { reason: 'incomplete', label: 'feedbackReasonIncomplete' },
  { reason: 'irrelevant_tickets', label: 'feedbackReasonIrrelevantTickets' },
  { reason: 'other', label: 'feedbackReasonOther' },
];

/** 👍/👎 under an answer; 👎 opens a reason picker with an optional comment. */
export function AnswerFeedbackBar({ state }: { state: AnswerFeedbackState }) {
  const { t } = useI18n();
  const [askingWhy, setAskingWhy] = useState(false);
  const [reason, setReason] = useState<FeedbackReason | undefined>(state.stored?.reason);
  const [comment, setComment] = useState(state.stored?.comment ?? '');
  const rating = state.stored?.rating;
  return (
    <div className="answer-feedback">
      <fieldset className="answer-feedback__buttons" aria-label={t('feedbackLabel')}>
        <button
          type="button"
          className="feedback-button"
          aria-pressed={rating === 'up'}
          disabled={state.pending}
          onClick={() => {
            setAskingWhy(false);
            state.submit({ rating: 'up' });
          }}
        >
          <span aria-hidden="true">👍</span> {t('feedbackUp')}
        </button>
        <button
          type="button"
          className="feedback-button"
          aria-pressed={rating === 'down'}
          aria-expanded={askingWhy}
          disabled={state.pending}
          onClick={() => setAskingWhy((open) => !open)}
        >
          <span aria-hidden="true">👎</span> {t('feedbackDown')}
        </button>
        {state.stored && !askingWhy && (
          <span className="answer-feedback__thanks" role="status">
            {t('feedbackThanks')}
          </span>
        )}
      </fieldset>
      {askingWhy && (
        <form
          className="answer-feedback__why"
          onSubmit={(event) => {
            event.preventDefault();
            state.submit({ rating: 'down', reason, comment: comment.trim() || undefined });
            setAskingWhy(false);
          }}
        >
          <fieldset>
            <legend>{t('feedbackWhy')}</legend>
            {REASONS.map((option) => (
              <label key={option.reason} className="answer-feedback__reason">
                <input
                  type="radio"
                  name="feedback-reason"
                  value={option.reason}
                  checked={reason === option.reason}
                  onChange={() => setReason(option.reason)}
                />
                {t(option.label)}
              </label>
            ))}
          </fieldset>
          <label className="answer-feedback__comment">
            {t('feedbackComment')}
            <textarea
              value={comment}
              maxLength={MAX_FEEDBACK_COMMENT_LENGTH}
              rows={2}
              onChange={(event) => setComment(event.target.value)}
            />
          </label>
          <div className="answer-feedback__actions">
            <button type="submit" className="button button--small" disabled={state.pending}>
              {t('feedbackSend')}
            </button>
            <button
              type="button"
              className="button button--small button--ghost"
              onClick={() => setAskingWhy(false)}
            >
              {t('cancel')}
            </button>
          </div>
        </form>
      )}
      {state.error && (
        <p className="answer-feedback__error" role="alert">
          {t('feedbackFailed')} {state.error}
        </p>
      )}
    </div>
  );
}

/** "This solved it" on one ticket card. */
export function SolvedToggle({ issueId, state }: { issueId: string; state: AnswerFeedbackState }) {
  const { t } = useI18n();
  const solved = state.stored?.helpfulTicketIds?.includes(issueId) ?? false;
  return (
    <button
      type="button"
      className="solved-toggle"
      aria-pressed={solved}
      disabled={state.pending}
      onClick={() => state.toggleHelpful(issueId)}
    >
      {solved ? `✓ ${t('ticketSolvedIt')}` : t('ticketSolvedIt')}
    </button>
  );
}
