import { type FormEvent, useEffect, useId, useRef, useState } from 'react';
import { ALL_DESK } from '../../../functions/contract/desks.js';
import {
  MAX_CATEGORY_LENGTH,
  MAX_INQUIRY_LENGTH,
  MAX_RESOLUTION_STEPS,
  MAX_STEP_LENGTH,
  MAX_SUBJECT_LENGTH,
  type PublishedKnowledge,
} from '../../../functions/contract/knowledge.js';
import { type TicketDraftTarget, useTicketDraft } from '../app/use-ticket-draft.js';
import { describeError } from '../errors/describe-error.js';
import { useI18n } from '../i18n/i18n-context.js';
import type { Locale, MessageKey } from '../i18n/messages.js';
import type { DraftFailure, TicketDraftState } from '../knowledge/ticket-draft-reducer.js';
import {
  type DraftFormField,
  type DraftProblem,
  type DraftProblems,
  draftFormFieldOf,
  findDraftLinkWarnings,
  findScrubPlaceholders,
  validateTicketDraft,
} from '../knowledge/validate-ticket-draft.js';
import { LinkWarningList } from './link-warning-list.js';

interface KnowledgeDraftPanelProps {
  /** The routes the draft comes from and goes to (keep it stable while the panel is open). */
  readonly target: TicketDraftTarget;
  /** Domains links may point to (`GET /api/me`): the form warns about others. */
  readonly allowedLinkDomains?: readonly string[];
  /** The categories a ticket may take (`GET /api/me`); empty or absent: any. */
  readonly ticketCategories?: readonly string[];
  /** The desks the editor may publish to (`GET /api/me`, ADR 0029); one or none: no choice. */
  readonly desks?: readonly string[];
  /** The inquiry's ticket, if the conversation already lists one (after a 409 reload). */
  readonly existing?: PublishedKnowledge;
  /** Cancel, Escape or a successful publish; `published` tells which. */
  readonly onClose: (published: boolean) => void;
}

const problemText: Record<DraftProblem, MessageKey> = {
  empty: 'draftProblemEmpty',
  invalidText: 'draftProblemInvalidText',
  tooLong: 'draftProblemTooLong',
  notOneLine: 'draftProblemNotOneLine',
  noCategory: 'draftProblemNoCategory',
  noSteps: 'draftProblemNoSteps',
  tooManySteps: 'draftProblemTooManySteps',
};

/**
 * "Save as knowledge": a modal dialog in which the model's ticket draft streams into the fields
 * (subject and inquiry growing, resolution steps appearing one by one), then staff edit and
 * publish it — from the chat (their own inquiry) or the insights page (a lead, from a gap's
 * solved example), by `target`. The native `<dialog>` keeps focus inside and closes on Escape; closing it while the
 * draft still streams aborts the request.
 */
export function KnowledgeDraftPanel({
  target,
  allowedLinkDomains,
  ticketCategories,
  desks,
  existing,
  onClose,
}: KnowledgeDraftPanelProps) {
  const { t, locale } = useI18n();
  const { state, dispatch, publish } = useTicketDraft(target, () => onClose(true));
  const dialog = useRef<HTMLDialogElement>(null);
  const subjectInput = useRef<HTMLInputElement>(null);
  const id = useId();
  // Problems show once staff tried to publish, and then follow every edit.
  const [checked, setChecked] = useState(false);

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (!element.open) element.showModal();
    subjectInput.current?.focus();
    return () => element.close();
  }, []);

  const { phase, fields } = state;
  const editable = phase === 'editing';
  const categories = ticketCategories ?? [];
  const check = validateTicketDraft(fields, categories);
  const problems: DraftProblems = checked && !check.ok ? check.problems : {};
  const serverProblem = serverFieldProblem(state.publishFailure);
  const maxOf = {
    subject: MAX_SUBJECT_LENGTH,
    inquiry: MAX_INQUIRY_LENGTH,
    step: MAX_STEP_LENGTH,
    steps: MAX_RESOLUTION_STEPS,
  };
  const say = (problem: DraftProblem | undefined, max: number) =>
    problem ? t(problemText[problem], { max }) : undefined;
  const fieldError = (field: DraftFormField, max: number): string | undefined =>
    say(problems[field], max) ??
    (serverProblem?.field === field ? serverProblem.message : undefined);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!editable) return;
    setChecked(true);
    if (check.ok) publish(check.ticket);
  };

  const subjectError = fieldError('subject', maxOf.subject);
  const categoryError = fieldError('category', 0);
  const inquiryError = fieldError('inquiry', maxOf.inquiry);
  const resolutionError = fieldError('resolution', maxOf.steps);
  const steps = fields.resolution;
  const unverifiedLinks = findDraftLinkWarnings(fields, allowedLinkDomains);
  const scrubPlaceholders = findScrubPlaceholders(fields);

  return (
    <dialog
      ref={dialog}
      className="knowledge-panel"
      aria-labelledby={`${id}-title`}
      aria-busy={phase === 'streaming'}
      onCancel={(event) => {
        // Escape: close through React, so the draft request is aborted with the panel.
        event.preventDefault();
        onClose(false);
      }}
    >
      <form className="knowledge-panel__form" onSubmit={onSubmit} noValidate>
        <h2 id={`${id}-title`} className="knowledge-panel__title">
          {t('saveAsKnowledge')}
        </h2>
        {phase === 'streaming' && (
          <p className="knowledge-panel__status" role="status">
            {t('knowledgeDrafting')}
          </p>
        )}
        <DraftNotice state={state} existing={existing} />

        <div className="knowledge-field">
          <label htmlFor={`${id}-subject`}>{t('knowledgeSubject')}</label>
          <input
            ref={subjectInput}
            id={`${id}-subject`}
            type="text"
            value={fields.subject}
            readOnly={!editable}
            maxLength={MAX_SUBJECT_LENGTH}
            aria-invalid={subjectError !== undefined}
            aria-describedby={subjectError ? `${id}-subject-error` : undefined}
            onChange={(event) =>
              dispatch({ type: 'edit', change: { subject: event.target.value } })
            }
          />
          <FieldError id={`${id}-subject-error`} text={subjectError} />
        </div>

        <div className="knowledge-field">
          <label htmlFor={`${id}-category`}>{t('knowledgeCategory')}</label>
          {categories.length > 0 ? (
            <select
              id={`${id}-category`}
              value={fields.category}
              disabled={!editable}
              aria-invalid={categoryError !== undefined}
              aria-describedby={categoryError ? `${id}-category-error` : undefined}
              onChange={(event) =>
                dispatch({ type: 'edit', change: { category: event.target.value } })
              }
            >
              <option value="">{t('knowledgeCategoryNone')}</option>
              {/* A draft's category outside the set stays visible, marked by the field error. */}
              {fields.category !== '' && !categories.includes(fields.category) && (
                <option value={fields.category}>{fields.category}</option>
              )}
              {categories.map((category) => (
                <option key={category} value={category}>
                  {category}
                </option>
              ))}
            </select>
          ) : (
            // The deployment knows no category set (a reused Knowledge Base): any safe label.
            <input
              id={`${id}-category`}
              value={fields.category}
              disabled={!editable}
              maxLength={MAX_CATEGORY_LENGTH}
              aria-invalid={categoryError !== undefined}
              aria-describedby={categoryError ? `${id}-category-error` : undefined}
              onChange={(event) =>
                dispatch({ type: 'edit', change: { category: event.target.value } })
              }
            />
          )}
          <FieldError id={`${id}-category-error`} text={categoryError} />
        </div>

        <div className="knowledge-field">
          <label htmlFor={`${id}-inquiry`}>{t('knowledgeInquiry')}</label>
          <textarea
            id={`${id}-inquiry`}
            value={fields.inquiry}
            readOnly={!editable}
            rows={4}
            maxLength={MAX_INQUIRY_LENGTH}
            aria-invalid={inquiryError !== undefined}
            aria-describedby={inquiryError ? `${id}-inquiry-error` : undefined}
            onChange={(event) =>
              dispatch({ type: 'edit', change: { inquiry: event.target.value } })
            }
          />
          <FieldError id={`${id}-inquiry-error`} text={inquiryError} />
        </div>

        <fieldset
          className="knowledge-field knowledge-steps"
          aria-describedby={resolutionError ? `${id}-resolution-error` : undefined}
        >
          <legend>{t('knowledgeResolution')}</legend>
          <ol className="knowledge-steps__list">
            {steps.map((step, index) => {
              const n = index + 1;
              const stepError = say(problems.steps?.[index], maxOf.step);
              const stepId = `${id}-step-${index}`;
              return (
                // Steps have no identity but their place; the index is what moves with them.
                // biome-ignore lint/suspicious/noArrayIndexKey: see above
                <li key={index} className="knowledge-steps__item">
                  <label htmlFor={stepId} className="visually-hidden">
                    {t('knowledgeStep', { n })}
                  </label>
                  <textarea
                    id={stepId}
                    value={step}
                    readOnly={!editable}
                    rows={2}
                    maxLength={MAX_STEP_LENGTH}
                    aria-invalid={stepError !== undefined}
                    aria-describedby={stepError ? `${stepId}-error` : undefined}
                    onChange={(event) =>
                      dispatch({ type: 'edit_step', index, text: event.target.value })
                    }
                  />
                  {editable && (
                    <span className="knowledge-steps__tools">
                      <button
                        type="button"
                        className="icon-button"
                        aria-label={t('knowledgeMoveStepUp', { n })}
                        disabled={index === 0}
                        onClick={() => dispatch({ type: 'move_step', index, by: -1 })}
                      >
                        ↑
                      </button>
                      <button
                        type="button"
                        className="icon-button"
                        aria-label={t('knowledgeMoveStepDown', { n })}
                        disabled={index === steps.length - 1}
                        onClick={() => dispatch({ type: 'move_step', index, by: 1 })}
                      >
                        ↓
                      </button>
                      <button
                        type="button"
                        className="icon-button"
                        aria-label={t('knowledgeRemoveStep', { n })}
                        onClick={() => dispatch({ type: 'remove_step', index })}
                      >
                        ×
                      </button>
                    </span>
                  )}
                  <FieldError id={`${stepId}-error`} text={stepError} />
                </li>
              );
            })}
          </ol>
          {editable && (
            <button
              type="button"
              className="button button--small"
              disabled={steps.length >= MAX_RESOLUTION_STEPS}
              onClick={() => dispatch({ type: 'add_step' })}
            >
              {t('knowledgeAddStep')}
            </button>
          )}
          <FieldError id={`${id}-resolution-error`} text={resolutionError} />
        </fieldset>

        {desks && desks.length > 1 && (
          <div className="knowledge-field">
            <label htmlFor={`${id}-desk`}>{t('knowledgeDesk')}</label>
            <select
              id={`${id}-desk`}
              value={fields.desk}
              disabled={!editable}
              aria-describedby={`${id}-desk-hint`}
              onChange={(event) => dispatch({ type: 'edit', change: { desk: event.target.value } })}
            >
              {desks.map((desk) => (
                <option key={desk} value={desk}>
                  {desk === ALL_DESK ? t('knowledgeDeskAll') : desk}
                </option>
              ))}
            </select>
            <p id={`${id}-desk-hint`} className="knowledge-field__hint">
              {t('knowledgeDeskHint')}
            </p>
          </div>
        )}

        <div className="knowledge-field knowledge-field--check">
          <label>
            <input
              type="checkbox"
              checked={fields.restricted}
              disabled={!editable}
              aria-describedby={`${id}-restricted-hint`}
              onChange={(event) =>
                dispatch({ type: 'edit', change: { restricted: event.target.checked } })
              }
            />
            {t('knowledgeRestricted')}
          </label>
          <p id={`${id}-restricted-hint`} className="knowledge-field__hint">
            {t('knowledgeRestrictedHint')}
          </p>
        </div>

        <UnverifiedLinksWarning id={`${id}-links`} links={unverifiedLinks} />

        {scrubPlaceholders.length > 0 && (
          <p className="status-notice knowledge-panel__personal-data" role="status">
            {t('knowledgePersonalDataRemoved')}
          </p>
        )}

        {state.publishFailure && serverProblem === undefined && (
          <p className="knowledge-panel__error" role="alert">
            {state.publishFailure.code === 'already_published'
              ? alreadyPublishedText(t, state.publishFailure.issueId ?? existing?.issueId)
              : `${t('knowledgePublishFailed')} ${publishFailureText(state.publishFailure, locale)}`}
          </p>
        )}

        <div className="knowledge-panel__actions">
          <button type="button" className="button" onClick={() => onClose(false)}>
            {t('cancel')}
          </button>
          <button type="submit" className="button button--primary" disabled={!editable}>
            {phase === 'publishing' ? t('knowledgePublishing') : t('knowledgePublish')}
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** Why the draft may be unfinished, and that staff can finish it. */
function DraftNotice({
  state,
  existing,
}: {
  state: TicketDraftState;
  existing?: PublishedKnowledge;
}) {
  const { t, locale } = useI18n();
  const { shortfall } = state;
  if (!shortfall) return null;
  if (shortfall.kind === 'failed' && shortfall.failure.code === 'already_published') {
    return (
      <p className="status-notice status-notice--failed" role="alert">
        {alreadyPublishedText(t, shortfall.failure.issueId ?? existing?.issueId)}
      </p>
    );
  }
  const headline =
    shortfall.kind === 'incomplete'
      ? t('knowledgeIncomplete')
      : shortfall.kind === 'cut'
        ? `${t('knowledgeDraftCut')} ${t('knowledgeFinishByHand')}`
        : `${t('knowledgeDraftFailed')} ${describeError(
            { code: shortfall.failure.code, httpStatus: shortfall.failure.httpStatus },
            locale,
          )} ${t('knowledgeFinishByHand')}`;
  return (
    <p
      className={`status-notice ${shortfall.kind === 'failed' ? 'status-notice--failed' : ''}`}
      role={shortfall.kind === 'failed' ? 'alert' : 'status'}
    >
      {headline}
    </p>
  );
}

/**
 * Links outside the allow-list, listed before the editor publishes. The live region is always in
 * the DOM (polite: it follows typing), so a link typed or streamed in is announced when it
 * appears; the list inside is a region labelled by its heading.
 */
function UnverifiedLinksWarning({ id, links }: { id: string; links: readonly string[] }) {
  const { t } = useI18n();
  return (
    <div aria-live="polite">
      {links.length > 0 && (
        <section className="status-notice link-warning" aria-labelledby={`${id}-title`}>
          <p id={`${id}-title`}>{t('knowledgeUnverifiedLinks')}</p>
          <LinkWarningList links={links} />
        </section>
      )}
    </div>
  );
}

function FieldError({ id, text }: { id: string; text: string | undefined }) {
  if (!text) return null;
  return (
    <p id={id} className="knowledge-field__error">
      {text}
    </p>
  );
}

/** The 409's own ticket number, or the one the reloaded conversation lists. */
function alreadyPublishedText(t: ReturnType<typeof useI18n>['t'], issueId: string | undefined) {
  return issueId
    ? t('knowledgeAlreadyPublished', { id: issueId })
    : t('knowledgeAlreadyPublishedNoId');
}

/** The server's own words for a rejected body (they name the rule); a sentence for the rest. */
function publishFailureText(failure: DraftFailure, locale: Locale): string {
  if (failure.httpStatus === 400 && failure.message) return failure.message;
  return describeError({ code: failure.code, httpStatus: failure.httpStatus }, locale);
}

/** A refusal of the publish route that names a form field (`field`): shown beside that field. */
function serverFieldProblem(
  failure: DraftFailure | undefined,
): { field: DraftFormField; message: string } | undefined {
  const field = draftFormFieldOf(failure?.field);
  return field && failure ? { field, message: failure.message } : undefined;
}
