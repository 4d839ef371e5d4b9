import { type FormEvent, useState } from 'react';
import {
  type ConversationSummary,
  MAX_TITLE_LENGTH,
} from '../../../functions/contract/conversations.js';
import { userTextProblem } from '../../../functions/contract/user-text.js';
import { useI18n } from '../i18n/i18n-context.js';

interface ConversationListItemProps {
  readonly conversation: ConversationSummary;
  readonly active: boolean;
  readonly onOpen: () => void;
  readonly onRename: (title: string) => void;
  readonly onDelete: () => void;
}

type Mode = 'view' | 'rename' | 'confirm-delete';

/** One sidebar entry: open it, rename it in place, or delete it after an explicit confirmation. */
export function ConversationListItem(props: ConversationListItemProps) {
  const { conversation, active, onOpen, onRename, onDelete } = props;
  const { t, formatDateTime } = useI18n();
  const [mode, setMode] = useState<Mode>('view');
  const [title, setTitle] = useState(conversation.title);

  const submitRename = (event: FormEvent) => {
    event.preventDefault();
    const trimmed = title.trim();
    // The API's rule for titles; an invisible or malformed title just keeps the old one.
    if (userTextProblem(title) === undefined && trimmed !== conversation.title) onRename(trimmed);
    setMode('view');
  };

  if (mode === 'rename') {
    return (
      <li className="conversation-item conversation-item--editing">
        <form onSubmit={submitRename} className="conversation-item__rename">
          <input
            className="text-input"
            aria-label={t('rename')}
            value={title}
            maxLength={MAX_TITLE_LENGTH}
            // biome-ignore lint/a11y/noAutofocus: the user just asked to edit this field
            autoFocus
            onChange={(event) => setTitle(event.target.value)}
            onKeyDown={(event) => event.key === 'Escape' && setMode('view')}
          />
          <button type="submit" className="button button--small">
            {t('save')}
          </button>
          <button type="button" className="button button--small" onClick={() => setMode('view')}>
            {t('cancel')}
          </button>
        </form>
      </li>
    );
  }

  return (
    <li className={active ? 'conversation-item conversation-item--active' : 'conversation-item'}>
      <button
        type="button"
        className="conversation-item__open"
        aria-current={active ? 'page' : undefined}
        onClick={onOpen}
      >
        <span className="conversation-item__title">{conversation.title}</span>
        <time className="conversation-item__time" dateTime={conversation.updatedAt}>
          {formatDateTime(conversation.updatedAt)}
        </time>
      </button>
      {mode === 'confirm-delete' ? (
        <div className="conversation-item__confirm" role="alert">
          <p>{t('confirmDelete')}</p>
          <button type="button" className="button button--small button--danger" onClick={onDelete}>
            {t('confirmDeleteYes')}
          </button>
          <button type="button" className="button button--small" onClick={() => setMode('view')}>
            {t('cancel')}
          </button>
        </div>
      ) : (
        <div className="conversation-item__actions">
          <button
            type="button"
            className="button button--small button--ghost"
            onClick={() => {
              setTitle(conversation.title);
              setMode('rename');
            }}
          >
            {t('rename')}
          </button>
          <button
            type="button"
            className="button button--small button--ghost"
            onClick={() => setMode('confirm-delete')}
          >
            {t('delete')}
          </button>
        </div>
      )}
    </li>
  );
}
