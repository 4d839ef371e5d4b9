import { MAX_IMAGE_PIXELS } from '../../../functions/contract/attachments.js';
import {
  type AttachmentDraft,
  type AttachmentFailure,
  isImagePreparationFailure,
} from '../attachments/attachment-drafts.js';
import type { RefusedFile } from '../attachments/attachment-rules.js';
import { describeError, isRetryableFailure } from '../errors/describe-error.js';
import { type I18n, useI18n } from '../i18n/i18n-context.js';

/** `204 KB`, `3.8 MB`: sizes as a file manager shows them. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
}

/** Why a file was refused before it was read, naming the file and the limit. */
function describeRefusal({ name, problem }: RefusedFile, t: I18n['t']): string {
  switch (problem.code) {
    case 'wrong_type':
      return t('attachmentRefusedWrongType', { name });
    case 'empty':
      return t('attachmentRefusedEmpty', { name });
    case 'too_large':
      return t('attachmentRefusedTooLarge', { name, limit: formatBytes(problem.limit) });
    case 'too_many':
      return t('attachmentRefusedTooMany', { name, limit: problem.limit });
  }
}

function describeFailure(failure: AttachmentFailure, { t, locale }: I18n): string {
  if (!isImagePreparationFailure(failure)) return describeError(failure, locale);
  return failure.code === 'too_many_pixels'
    ? t('attachmentTooManyPixels', { limit: MAX_IMAGE_PIXELS / 1_000_000 })
    : t('attachmentUnreadable');
}

function canRetry(failure: AttachmentFailure | undefined): boolean {
  return (
    failure !== undefined && !isImagePreparationFailure(failure) && isRetryableFailure(failure)
  );
}

interface AttachmentTrayProps {
  readonly drafts: readonly AttachmentDraft[];
  readonly refused: readonly RefusedFile[];
  readonly onRemove: (localId: string) => void;
  readonly onRetry: (localId: string) => void;
  readonly onDismissRefusals: () => void;
}

/**
 * The files attached to the message being written: a thumbnail (images, as they will be sent)
 * or a chip (text files), each with its state and a remove button, a failed upload with its
 * reason and, when another try can help, a retry. Files refused outright are listed above it.
 */
export function AttachmentTray({
  drafts,
  refused,
  onRemove,
  onRetry,
  onDismissRefusals,
}: AttachmentTrayProps) {
  const i18n = useI18n();
  const { t } = i18n;
  return (
    <>
      {refused.length > 0 && (
        <div className="attachment-refusals" role="alert">
          <ul>
            {refused.map((refusal, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: one offer's refusals, never reordered
              <li key={index}>{describeRefusal(refusal, t)}</li>
            ))}
          </ul>
          <button
            type="button"
            className="button button--ghost button--small"
            aria-label={t('attachmentRefusalsDismiss')}
            onClick={onDismissRefusals}
          >
            ×
          </button>
        </div>
      )}
      {drafts.length > 0 && (
        <ul className="attachment-tray" aria-label={t('attachments')}>
          {drafts.map((draft) => (
            <li
              key={draft.localId}
              className={`attachment-draft attachment-draft--${draft.status}`}
              data-status={draft.status}
            >
              {draft.kind === 'image' && draft.previewUrl ? (
                <img className="attachment-draft__thumbnail" src={draft.previewUrl} alt="" />
              ) : (
                <span className="attachment-draft__icon" aria-hidden="true">
                  {draft.kind === 'image' ? '🖼' : '📄'}
                </span>
              )}
              <span className="attachment-draft__text">
                <span className="attachment-draft__name">{draft.name}</span>
                <span className="attachment-draft__state" aria-live="polite">
                  {draft.status === 'preparing'
                    ? t('attachmentPreparing')
                    : draft.status === 'uploading'
                      ? t('attachmentUploading')
                      : draft.status === 'ready'
                        ? `${t('attachmentReady')}${draft.stored ? ` · ${formatBytes(draft.stored.size)}` : ''}`
                        : t('attachmentFailed', {
                            reason: draft.failure ? describeFailure(draft.failure, i18n) : '',
                          })}
                </span>
              </span>
              {draft.status === 'failed' && canRetry(draft.failure) && (
                <button
                  type="button"
                  className="button button--small"
                  aria-label={t('attachmentRetry', { name: draft.name })}
                  onClick={() => onRetry(draft.localId)}
                >
                  {t('retry')}
                </button>
              )}
              <button
                type="button"
                className="button button--ghost button--small attachment-draft__remove"
                aria-label={t('attachmentRemove', { name: draft.name })}
                onClick={() => onRemove(draft.localId)}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
