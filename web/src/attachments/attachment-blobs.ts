import { createContext, useContext, useEffect, useState } from 'react';
import type { AttachmentApi } from '../api/create-attachment-api.js';

/**
 * The bytes of attachments this page has sent or shown, by id: a sent question shows the very
 * bytes just uploaded, and a conversation opened again fetches each one once (with the token:
 * an `<img>` cannot send it). The newest `capacity` are kept.
 */
export interface AttachmentBlobs {
  remember(id: string, blob: Blob): void;
  get(id: string): Promise<Blob>;
}

export function createAttachmentBlobs(api: AttachmentApi, capacity = 50): AttachmentBlobs {
  const blobs = new Map<string, Promise<Blob>>();
  const keep = (id: string, blob: Promise<Blob>) => {
    blobs.delete(id);
    blobs.set(id, blob);
    for (const oldest of blobs.keys()) {
      if (blobs.size <= capacity) break;
      blobs.delete(oldest);
    }
    // A failed fetch is not kept: the next view asks again.
    blob.catch(() => {
      if (blobs.get(id) === blob) blobs.delete(id);
    });
    return blob;
  };
  return {
    remember: (id, blob) => void keep(id, Promise.resolve(blob)),
    get: (id) => blobs.get(id) ?? keep(id, api.download(id)),
  };
}

/** The attachment routes and the bytes already here, provided once by the signed-in app. */
export const AttachmentsContext = createContext<
  { readonly api: AttachmentApi; readonly blobs: AttachmentBlobs } | undefined
>(undefined);

/**
 * A `blob:` URL for the attachment `id` while the component shows it (revoked when it stops), or
 * with `text` the text file's content instead; `failed` when the bytes could not be fetched.
 */
export function useAttachmentBlob(
  id: string,
  options: { readonly text?: boolean; readonly enabled?: boolean } = {},
): { readonly url?: string; readonly text?: string; readonly failed: boolean } {
  const blobs = useContext(AttachmentsContext)?.blobs;
  const [shown, setShown] = useState<{ url?: string; text?: string; failed: boolean }>({
    failed: false,
  });
  const { text = false, enabled = true } = options;
  useEffect(() => {
    if (!blobs || !enabled) return;
    let url: string | undefined;
    let cancelled = false;
    blobs
      .get(id)
      .then(async (blob) => {
        if (text) {
          const content = await blob.text();
          if (!cancelled) setShown({ text: content, failed: false });
          return;
        }
        if (cancelled) return;
        url = URL.createObjectURL(blob);
        setShown({ url, failed: false });
      })
      .catch(() => {
        if (!cancelled) setShown({ failed: true });
      });
    return () => {
      cancelled = true;
      if (url) URL.revokeObjectURL(url);
    };
  }, [blobs, id, text, enabled]);
  return shown;
}
