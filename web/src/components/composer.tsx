import {
  type ClipboardEvent,
  type DragEvent,
  type FormEvent,
  type KeyboardEvent,
  useContext,
  useEffect,
  useId,
  useRef,
  useState,
} from 'react';
import {
  type AttachmentRef,
  MAX_ATTACHMENTS_PER_MESSAGE,
} from '../../../functions/contract/attachments.js';
import { MAX_MESSAGE_LENGTH } from '../../../functions/contract/chat-request.js';
import { userTextProblem } from '../../../functions/contract/user-text.js';
import { AttachmentsContext } from '../attachments/attachment-blobs.js';
import { ACCEPTED_FILES, filesToAttachOnPaste } from '../attachments/attachment-rules.js';
import { useAttachmentDrafts } from '../attachments/use-attachment-drafts.js';
import { useI18n } from '../i18n/i18n-context.js';
import { shouldSendOnKeyDown } from '../input/should-send-on-key-down.js';
import { AttachmentTray } from './attachment-tray.js';

interface ComposerProps {
  /** An answer is streaming into this conversation: typing waits, the stop button shows. */
  readonly streaming: boolean;
  readonly stopping: boolean;
  /** The next message starts a new inquiry (shown as a chip that can be cancelled). */
  readonly newInquiry: boolean;
  /** The text (empty when files alone carry the inquiry) and the uploaded files, if any. */
  readonly onSend: (message: string, attachments?: readonly AttachmentRef[]) => void;
  readonly onStop: () => void;
  readonly onCancelNewInquiry: () => void;
}

/**
 * The message box: Enter sends, Shift+Enter adds a line, Enter that confirms IME input does not
 * send. Files are attached by pasting (an image alone on the clipboard), dropping or picking;
 * the message waits until every file is uploaded.
 */
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
  const [dragging, setDragging] = useState(false);
  const textarea = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);
  const id = useId();
  const waitingId = useId();
  const services = useContext(AttachmentsContext);
  if (!services) throw new Error('Composer needs an AttachmentsContext');
  const attachments = useAttachmentDrafts(services.api, services.blobs);
  const files = attachments.toSend;
  // The API's own rule: whitespace, zero-width characters or a lone surrogate are not a message;
  // files alone are (a screenshot is the inquiry).
  const hasText = userTextProblem(text) === undefined;
  const canSend =
    !streaming &&
    files !== 'pending' &&
    (hasText || (text.trim() === '' && files !== undefined && files.length > 0));

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
    onSend(hasText ? text.trim() : '', files);
    setText('');
    attachments.sent();
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

  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>) => {
    const pasted = filesToAttachOnPaste({
      files: Array.from(event.clipboardData.files),
      text: event.clipboardData.getData('text/plain'),
    });
    if (pasted.length === 0) return;
    event.preventDefault();
    attachments.add(pasted);
  };
  const carriesFiles = (event: DragEvent) => event.dataTransfer.types.includes('Files');
  const onDragOver = (event: DragEvent<HTMLFormElement>) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };
  const onDragLeave = (event: DragEvent<HTMLFormElement>) => {
    if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
  };
  const onDrop = (event: DragEvent<HTMLFormElement>) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    setDragging(false);
    attachments.add(Array.from(event.dataTransfer.files));
    textarea.current?.focus();
  };

  return (
    <form
      className={`composer${dragging ? ' composer--dragging' : ''}`}
      onSubmit={onSubmit}
      onDragOver={onDragOver}
      onDragLeave={onDragLeave}
      onDrop={onDrop}
    >
      {dragging && (
        <p className="composer__drop-hint" aria-hidden="true">
          {t('attachmentDropHere')}
        </p>
      )}
      <AttachmentTray
        drafts={attachments.drafts}
        refused={attachments.refused}
        onRemove={(localId) => {
          attachments.remove(localId);
          textarea.current?.focus();
        }}
        onRetry={attachments.retry}
        onDismissRefusals={() => {
          attachments.dismissRefusals();
          textarea.current?.focus();
        }}
      />
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
        onPaste={onPaste}
        aria-describedby={files === 'pending' ? waitingId : undefined}
      />
      {files === 'pending' && (
        <p id={waitingId} className="visually-hidden">
          {t('attachmentWaiting')}
        </p>
      )}
      <input
        ref={picker}
        type="file"
        multiple
        hidden
        accept={ACCEPTED_FILES}
        onChange={(event) => {
          attachments.add(Array.from(event.currentTarget.files ?? []));
          // The same file can be picked again after it was removed.
          event.currentTarget.value = '';
        }}
      />
      <button
        type="button"
        className="button composer__attach"
        aria-label={t('attachFiles', { max: MAX_ATTACHMENTS_PER_MESSAGE })}
        title={t('attachFiles', { max: MAX_ATTACHMENTS_PER_MESSAGE })}
        onClick={() => picker.current?.click()}
      >
        <svg aria-hidden="true" width="20" height="20" viewBox="0 0 24 24" fill="none">
          <path
            d="M21 11.5 12.5 20a5.5 5.5 0 0 1-7.8-7.8l8.9-8.9a3.7 3.7 0 0 1 5.2 5.2l-8.9 8.9a1.8 1.8 0 0 1-2.6-2.6l8.2-8.2"
            stroke="currentColor"
            strokeWidth="2"
            strokeLinecap="round"
            strokeLinejoin="round"
          />
        </svg>
      </button>
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
