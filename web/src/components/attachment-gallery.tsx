import { useEffect, useId, useRef, useState } from 'react';
import { type AttachmentRef, isImageType } from '../../../functions/contract/attachments.js';
import { useAttachmentBlob } from '../attachments/attachment-blobs.js';
import { useI18n } from '../i18n/i18n-context.js';
import { formatBytes } from './attachment-tray.js';

/**
 * The files sent with a question: image thumbnails and text-file chips; each opens in a modal
 * dialog (the image at full size, the text as plain text). The bytes come with the caller's
 * token and show as `blob:` URLs, revoked when the bubble goes.
 */
export function AttachmentGallery({ attachments }: { attachments: readonly AttachmentRef[] }) {
  const { t } = useI18n();
  const [open, setOpen] = useState<AttachmentRef>();
  return (
    <>
      <ul className="attachment-gallery" aria-label={t('attachments')}>
        {attachments.map((attachment, index) => (
          <li key={attachment.id}>
            <AttachmentThumbnail
              attachment={attachment}
              label={nameOf(attachment, index)}
              onOpen={() => setOpen(attachment)}
            />
          </li>
        ))}
      </ul>
      {open && (
        <AttachmentViewer
          attachment={open}
          label={nameOf(open, attachments.indexOf(open))}
          onClose={() => setOpen(undefined)}
        />
      )}
    </>
  );
}

/** A pasted screenshot has no useful name (`image.png`): number it instead. */
function nameOf(attachment: AttachmentRef, index: number): string {
  return attachment.name ?? `${isImageType(attachment.type) ? '🖼' : '📄'} ${index + 1}`;
}

function AttachmentThumbnail({
  attachment,
  label,
  onOpen,
}: {
  attachment: AttachmentRef;
  label: string;
  onOpen: () => void;
}) {
  const { t } = useI18n();
  const image = isImageType(attachment.type);
  const { url, failed } = useAttachmentBlob(attachment.id, { enabled: image });
  if (image) {
    return (
      <button
        type="button"
        className="attachment-thumbnail"
        aria-label={
          failed
            ? t('attachmentUnavailable', { name: label })
            : t('attachmentOpen', { name: label })
        }
        disabled={failed}
        onClick={onOpen}
      >
        {url ? (
          <img
            src={url}
            alt=""
            width={attachment.width}
            height={attachment.height}
            data-attachment-id={attachment.id}
          />
        ) : (
          <span aria-hidden="true">🖼</span>
        )}
      </button>
    );
  }
  return (
    <button
      type="button"
      className="attachment-chip"
      aria-label={t('attachmentOpen', { name: label })}
      onClick={onOpen}
    >
      <span aria-hidden="true">📄</span> {label}{' '}
      <span className="attachment-chip__size">{formatBytes(attachment.size)}</span>
    </button>
  );
}

/** A modal dialog: Esc and the close button close it, and focus returns to the thumbnail. */
function AttachmentViewer({
  attachment,
  label,
  onClose,
}: {
  attachment: AttachmentRef;
  label: string;
  onClose: () => void;
}) {
  const { t } = useI18n();
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const image = isImageType(attachment.type);
  const { url, text, failed } = useAttachmentBlob(attachment.id, { text: !image });
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
    return () => element?.close();
  }, []);
  return (
    <dialog ref={dialog} className="attachment-viewer" aria-labelledby={titleId} onClose={onClose}>
      <div className="attachment-viewer__header">
        <h2 id={titleId} className="attachment-viewer__title">
          {label}
        </h2>
        <button
          type="button"
          className="button button--small"
          onClick={() => dialog.current?.close()}
        >
          {t('close')}
        </button>
      </div>
      {failed ? (
        <p>{t('attachmentUnavailable', { name: label })}</p>
      ) : image ? (
        url && <img className="attachment-viewer__image" src={url} alt={label} />
      ) : (
        text !== undefined && <pre className="attachment-viewer__text">{text}</pre>
      )}
    </dialog>
  );
}
