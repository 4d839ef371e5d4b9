import { type FormEvent, type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import { MAX_MESSAGE_LENGTH } from '../../../functions/contract/chat-request.js';
import { userTextProblem } from '../../../functions/contract/user-text.js';
import { useI18n } from '../i18n/i18n-context.js';
import { shouldSendOnKeyDown } from '../input/should-send-on-key-down.js';

interface ComposerProps {
  /** An answer is streaming into this conversation: typing waits, the stop button shows. */
  readonly streaming: boolean;
  readonly stopping: boolean;
  /** The next message starts a new inquiry (shown as a chip that can be cancelled). */
  readonly newInquiry: boolean;
  readonly onSend: (message: string) => void;
  readonly onStop: () => void;
  readonly onCancelNewInquiry: () => void;
}

/** The message box: Enter sends, Shift+Enter adds a line, Enter that confirms IME input does not send. */
export function Composer({
  streaming,
  stopping,
  newInquiry,
  onSend,
  onStop,
  onCancelNewInquiry,
}: ComposerProps) {
  const { t } = useI18n();
  const [text, setText] = useState('');
  const textarea = useRef<HTMLTextAreaElement>(null);
  const id = useId();
  // The API's own rule: whitespace, zero-width characters or a lone surrogate are not a message.
  const canSend = !streaming && userTextProblem(text) === undefined;

  // Disabling the box while streaming drops focus to <body>; give it back when the answer ends,
  // unless the user has moved on to something else (an option button, the sidebar).
  useEffect(() => {
    if (!streaming && document.activeElement === document.body) textarea.current?.focus();
  }, [streaming]);

  // "New inquiry" was chosen beside a clarification: the question is typed here next.
  useEffect(() => {
    if (newInquiry) textarea.current?.focus();
  }, [newInquiry]);

  const send = () => {
    if (!canSend) return;
    onSend(text.trim());
    setText('');
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    send();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    const facts = {
      key: event.key,
      shiftKey: event.shiftKey,
      isComposing: event.nativeEvent.isComposing,
      keyCode: event.keyCode,
    };
    if (!shouldSendOnKeyDown(facts)) return;
    event.preventDefault();
    send();
  };

  return (
    <form className="composer" onSubmit={onSubmit}>
      {newInquiry && (
        <p className="composer__chip" title={t('newInquiryHint')}>
          <span>{t('newInquiry')}</span>
          <button
            type="button"
            className="composer__chip-cancel"
            aria-label={t('cancelNewInquiry')}
            onClick={onCancelNewInquiry}
          >
            ×
          </button>
        </p>
      )}
      <label htmlFor={id} className="visually-hidden">
        {t('composerLabel')}
      </label>
      <textarea
        ref={textarea}
        id={id}
        className="composer__input"
        rows={2}
        maxLength={MAX_MESSAGE_LENGTH}
        value={text}
        disabled={streaming}
        placeholder={t('composerPlaceholder')}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={onKeyDown}
      />
      {streaming ? (
        <button type="button" className="button button--stop" onClick={onStop} disabled={stopping}>
          {stopping ? t('stopping') : t('stop')}
        </button>
      ) : (
        <button type="submit" className="button button--primary" disabled={!canSend}>
          {t('send')}
        </button>
      )}
    </form>
  );
}
