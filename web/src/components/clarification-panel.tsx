import { type FormEvent, useId, useState } from 'react';
import { userTextProblem } from '../../../functions/contract/user-text.js';
import { useI18n } from '../i18n/i18n-context.js';

interface ClarificationPanelProps {
  readonly question?: string;
  readonly options: readonly string[];
  /** Only the latest clarification of the open inquiry can still be answered. */
  readonly active: boolean;
  readonly onAnswer: (text: string) => void;
  /** Staff leave the clarification unanswered: the next message in the composer starts a new inquiry. */
  readonly onNewInquiry: () => void;
}

/**
 * The assistant's question with its options as buttons, plus free text. The answer is sent as
 * the next message of the same conversation; the server continues the same inquiry. "New
 * inquiry" instead marks the composer's next message as a new inquiry in the same conversation.
 */
export function ClarificationPanel({
  question,
  options,
  active,
  onAnswer,
  onNewInquiry,
}: ClarificationPanelProps) {
  const { t } = useI18n();
  const [other, setOther] = useState('');
  const inputId = useId();
  const questionId = useId();
  const submitOther = (event: FormEvent) => {
    event.preventDefault();
    if (userTextProblem(other) !== undefined) return;
    onAnswer(other.trim());
    setOther('');
  };
  return (
    <section className="clarification">
      {question && (
        <p id={questionId} className="clarification__question">
          {question}
        </p>
      )}
      {active && <p className="clarification__hint">{t('clarificationHint')}</p>}
      {/* A group named by the question: a screen reader tabbing to an option hears what it answers. */}
      <fieldset
        className="clarification__options"
        aria-labelledby={question ? questionId : undefined}
      >
        {options.map((option) => (
          <button
            key={option}
            type="button"
            className="button button--option"
            disabled={!active}
            onClick={() => onAnswer(option)}
          >
            {option}
          </button>
        ))}
      </fieldset>
      {active && (
        <form className="clarification__other" onSubmit={submitOther}>
          <label htmlFor={inputId} className="visually-hidden">
            {t('clarificationOther')}
          </label>
          <input
            id={inputId}
            className="text-input"
            value={other}
            placeholder={t('clarificationOther')}
            onChange={(event) => setOther(event.target.value)}
          />
          <button type="submit" className="button" disabled={userTextProblem(other) !== undefined}>
            {t('send')}
          </button>
        </form>
      )}
      {active && (
        <button type="button" className="button clarification__new-inquiry" onClick={onNewInquiry}>
          {t('startNewInquiry')}
        </button>
      )}
    </section>
  );
}
