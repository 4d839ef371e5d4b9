import { memo, useState } from 'react';
import type { AttachmentRef } from '../../../functions/contract/attachments.js';
import { MAX_MESSAGE_LENGTH } from '../../../functions/contract/chat-request.js';
import { userTextProblem } from '../../../functions/contract/user-text.js';
import { useI18n } from '../i18n/i18n-context.js';
import type { UserBubble } from '../state/bubble.js';
import type { VersionPosition } from '../state/select-versions.js';
import { AttachmentGallery } from './attachment-gallery.js';

interface UserBubbleViewProps {
  readonly bubble: UserBubble;
  /** Where this question stands among its versions, when it has more than one. */
  readonly position?: VersionPosition;
  /** Show another version of this question (‹ ›). */
  readonly onBrowse?: (chain: string, index: number) => void;
  /**
   * Present on the latest question while nothing streams: send an edited version of it, with
   * the files it keeps.
   */
  readonly onEdit?: (text: string, attachments: readonly AttachmentRef[] | undefined) => void;
}

/**
 * What the staff member asked. Plain text, line breaks kept; "1/2" with ‹ › when it was edited or
 * regenerated, and on the latest question an "edit" that resends it as a new version.
 */
export const UserBubbleView = memo(function UserBubbleView({
  bubble,
  position,
  onBrowse,
  onEdit,
}: UserBubbleViewProps) {
  const { t } = useI18n();
  const [draft, setDraft] = useState<string>();
  // The files the edited version keeps: the question's, less those removed while editing.
  const [kept, setKept] = useState(bubble.attachments);
  if (draft !== undefined && onEdit) {
    // The API's own rules: visible text, well-formed, within the message limit — or no text
    // at all when the question's files carry it.
    const sendable =
      (userTextProblem(draft) === undefined && draft.trim().length <= MAX_MESSAGE_LENGTH) ||
      (draft.trim() === '' && (kept?.length ?? 0) > 0);
    return (
      <li className="bubble bubble--user bubble--editing">
        <form
          className="user-edit"
          onSubmit={(event) => {
            event.preventDefault();
            if (!sendable) return;
            setDraft(undefined);
            onEdit(draft, kept);
          }}
        >
          <textarea
            className="user-edit__input"
            aria-label={t('editLabel')}
            value={draft}
            rows={Math.min(8, Math.max(2, draft.split('\n').length))}
            onChange={(event) => setDraft(event.target.value)}
          />
          {kept && kept.length > 0 && (
            <ul className="attachment-tray" aria-label={t('attachments')}>
              {kept.map((attachment, index) => {
                const name = attachment.name ?? `${index + 1}`;
                return (
                  <li key={attachment.id} className="attachment-draft">
                    <span className="attachment-draft__name">{name}</span>
                    <button
                      type="button"
                      className="button button--ghost button--small attachment-draft__remove"
                      aria-label={t('attachmentRemove', { name })}
                      onClick={() => setKept(kept.filter((other) => other !== attachment))}
                    >
                      ×
                    </button>
                  </li>
                );
              })}
            </ul>
          )}
          <div className="user-edit__actions">
            <button
              type="button"
              className="button button--small"
              onClick={() => {
                setDraft(undefined);
                setKept(bubble.attachments);
              }}
            >
              {t('cancel')}
            </button>
            <button
              type="submit"
              className="button button--small button--primary"
              disabled={!sendable}
            >
              {t('send')}
            </button>
          </div>
        </form>
      </li>
    );
  }
  return (
    <li className="bubble bubble--user">
      <span className="visually-hidden">{t('you')}: </span>
      {bubble.text !== '' && <p className="bubble__text">{bubble.text}</p>}
      {bubble.attachments && bubble.attachments.length > 0 && (
        <AttachmentGallery attachments={bubble.attachments} />
      )}
      {(position || onEdit) && (
        <div className="bubble__tools">
          {position && (
            <span className="version-pager">
              <button
                type="button"
                className="button button--ghost button--small"
                aria-label={t('previousVersion')}
                disabled={position.index === 0}
                onClick={() => onBrowse?.(position.chain, position.index - 1)}
              >
                ‹
              </button>
              <span className="version-pager__label">
                {position.index + 1}/{position.count}
              </span>
              <button
                type="button"
                className="button button--ghost button--small"
                aria-label={t('nextVersion')}
                disabled={position.index === position.count - 1}
                onClick={() => onBrowse?.(position.chain, position.index + 1)}
              >
                ›
              </button>
            </span>
          )}
          {onEdit && (
            <button
              type="button"
              className="button button--small"
              onClick={() => {
                setDraft(bubble.text);
                setKept(bubble.attachments);
              }}
            >
              {t('edit')}
            </button>
          )}
        </div>
      )}
    </li>
  );
});
