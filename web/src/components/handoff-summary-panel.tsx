import { useEffect, useId, useRef, useState } from 'react';
import {
  HANDOFF_FIELDS,
  HANDOFF_LIST_FIELDS,
  type HandoffField,
  handoffSummaryText,
} from '../../../functions/contract/handoff.js';
import type { HandoffApi } from '../api/create-handoff-api.js';
import { useHandoffSummary } from '../app/use-handoff-summary.js';
import { describeError } from '../errors/describe-error.js';
import { summaryOfFields } from '../handoff/handoff-summary-reducer.js';
import { useI18n } from '../i18n/i18n-context.js';
import type { MessageKey } from '../i18n/messages.js';
import { withoutUnverifiedLinks } from '../markdown/unverified-links.js';
import { UnverifiedLinksNotice } from './unverified-links-notice.js';
import { useFocusAfterCommit } from './use-focus-after-commit.js';

interface HandoffSummaryPanelProps {
  readonly api: HandoffApi;
  readonly conversationId: string;
  readonly inquiryId: string;
  readonly onClose: () => void;
}

const FIELD_LABELS: Record<HandoffField, MessageKey> = {
  symptom: 'handoffSymptom',
  environment: 'handoffEnvironment',
  tried: 'handoffTried',
  told_requester: 'handoffToldRequester',
  open_questions: 'handoffOpenQuestions',
};

const FIELD_ROWS: Record<HandoffField, number> = {
  symptom: 3,
  environment: 2,
  tried: 5,
  told_requester: 3,
  open_questions: 3,
};

const LIST_FIELDS: ReadonlySet<HandoffField> = new Set(HANDOFF_LIST_FIELDS);

/**
 * "Hand-off summary": a modal dialog in which the inquiry's summary for escalation streams into
 * labelled fields, then staff edit it and copy it as plain text (labels in the summary's
 * language). The native `<dialog>` keeps focus inside and closes on Escape; closing it while the
 * summary still streams aborts the request. The edited summary is kept in the tab (ADR 0024).
 */
export function HandoffSummaryPanel({
  api,
  conversationId,
  inquiryId,
  onClose,
}: HandoffSummaryPanelProps) {
  const { t, locale } = useI18n();
  const { state, dispatch, regenerate } = useHandoffSummary(api, conversationId, inquiryId, locale);
  const dialog = useRef<HTMLDialogElement>(null);
  const firstField = useRef<HTMLTextAreaElement>(null);
  const id = useId();
  const [copied, setCopied] = useState<'copied' | 'blocked' | undefined>();

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (!element.open) element.showModal();
    firstField.current?.focus();
    return () => element.close();
  }, []);

  const { phase, fields, shortfall } = state;
  const editable = phase === 'editing';
  const copy = async () => {
    try {
      // Staff may have typed a link in: the copied text leaves out what the page would mark.
      await navigator.clipboard.writeText(
        withoutUnverifiedLinks(
          handoffSummaryText(summaryOfFields(fields), state.language),
          state.unverifiedLinks ?? [],
        ),
      );
      setCopied('copied');
    } catch {
      // Clipboard blocked (http, permissions): the fields stay selectable by hand.
      setCopied('blocked');
    }
  };

  return (
    <dialog
      ref={dialog}
      className="knowledge-panel handoff-panel"
      aria-labelledby={`${id}-title`}
      aria-busy={phase === 'streaming'}
      onCancel={(event) => {
        // Escape: close through React, so the request is aborted with the panel.
        event.preventDefault();
        onClose();
      }}
    >
      <form className="knowledge-panel__form" onSubmit={(event) => event.preventDefault()}>
        <h2 id={`${id}-title`} className="knowledge-panel__title">
          {t('handoffSummary')}
        </h2>
        <p className="knowledge-field__hint">{t('handoffHint')}</p>
        {phase === 'streaming' && (
          <p className="knowledge-panel__status" role="status">
            {t('handoffWriting')}
          </p>
        )}
        {shortfall && (
          <p
            className={`status-notice ${shortfall.kind === 'failed' ? 'status-notice--failed' : ''}`}
            role={shortfall.kind === 'failed' ? 'alert' : 'status'}
          >
            {shortfall.kind === 'incomplete'
              ? t('handoffIncomplete')
              : shortfall.kind === 'cut'
                ? t('handoffCut')
                : `${t('handoffFailed')} ${describeError(shortfall.failure, locale)}`}
          </p>
        )}
        {state.outcome && state.outcome !== 'solved' && (
          <p className="status-notice">{t('handoffUnsolved')}</p>
        )}
        {state.unverifiedLinks && (
          <UnverifiedLinksNotice links={state.unverifiedLinks} message="handoffLinksRemoved" />
        )}

        {HANDOFF_FIELDS.map((field, index) => {
          const fieldId = `${id}-${field}`;
          const list = LIST_FIELDS.has(field);
          return (
            <div key={field} className="knowledge-field">
              <label htmlFor={fieldId}>{t(FIELD_LABELS[field])}</label>
              <textarea
                ref={index === 0 ? firstField : undefined}
                id={fieldId}
                name={field}
                value={fields[field]}
                readOnly={!editable}
                rows={FIELD_ROWS[field]}
                aria-describedby={list ? `${fieldId}-hint` : undefined}
                onChange={(event) => dispatch({ type: 'edit', field, value: event.target.value })}
              />
              {list && (
                <p id={`${fieldId}-hint`} className="knowledge-field__hint">
                  {t('handoffOnePerLine')}
                </p>
              )}
            </div>
          );
        })}

        <span className="visually-hidden" aria-live="polite">
          {copied === 'copied' ? t('copied') : copied === 'blocked' ? t('handoffCopyBlocked') : ''}
        </span>
        <div className="knowledge-panel__actions">
          <button type="button" className="button" onClick={onClose}>
            {t('handoffClose')}
          </button>
          <button type="button" className="button" disabled={!editable} onClick={regenerate}>
            {t('handoffRegenerate')}
          </button>
          <button
            type="button"
            className="button button--primary"
            disabled={!editable}
            onClick={() => void copy()}
          >
            {copied === 'copied' ? t('copied') : t('handoffCopy')}
          </button>
        </div>
      </form>
    </dialog>
  );
}

/**
 * Under an inquiry's last answer, beside the knowledge actions: "Hand-off summary", which opens
 * the panel. For every stored inquiry of the open conversation, solved or not.
 */
export function HandoffAction({
  api,
  conversationId,
  inquiryId,
}: {
  readonly api: HandoffApi;
  readonly conversationId: string;
  readonly inquiryId: string;
}) {
  const { t } = useI18n();
  const [open, setOpen] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const focusAfterCommit = useFocusAfterCommit();
  const close = () => {
    setOpen(false);
    focusAfterCommit(opener);
  };
  return (
    <div className="knowledge-actions handoff-actions">
      <button
        ref={opener}
        type="button"
        className="button button--small"
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
      >
        {t('handoffSummary')}
      </button>
      {open && (
        <HandoffSummaryPanel
          api={api}
          conversationId={conversationId}
          inquiryId={inquiryId}
          onClose={close}
        />
      )}
    </div>
  );
}
