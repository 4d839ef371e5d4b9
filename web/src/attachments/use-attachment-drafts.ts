import { useCallback, useEffect, useReducer, useRef } from 'react';
import type { AttachmentRef, AttachmentType } from '../../../functions/contract/attachments.js';
import { ApiError } from '../api/api-error.js';
import type { AttachmentApi } from '../api/create-attachment-api.js';
import type { AttachmentBlobs } from './attachment-blobs.js';
import {
  type AttachmentDraftsState,
  attachmentDraftsReducer,
  attachmentsToSend,
  emptyAttachmentDrafts,
} from './attachment-drafts.js';
import { type AttachmentKind, admitFiles } from './attachment-rules.js';
import { ImagePreparationError } from './downscale-image.js';
import { prepareImage } from './prepare-image.js';

/** What is uploaded for one draft, kept so a failed upload can be retried. */
interface Payload {
  readonly bytes: Blob;
  readonly type: AttachmentType;
  readonly name: string;
}

export interface AttachmentDraftsController extends AttachmentDraftsState {
  /** Files pasted, dropped or picked: each is checked, prepared and uploaded at once. */
  add(files: readonly File[]): void;
  remove(localId: string): void;
  retry(localId: string): void;
  dismissRefusals(): void;
  /** The refs to send: `undefined` with none, `'pending'` until every file is uploaded. */
  readonly toSend: readonly AttachmentRef[] | 'pending' | undefined;
  /** The message went out with them: keep their bytes for the sent question, start empty. */
  sent(): void;
}

/**
 * The composer's attachments: checks what is offered (type, size, count), downscales images,
 * uploads each file on its own, and owns the preview `blob:` URLs (revoked on remove, on send and
 * when the composer goes away).
 */
export function useAttachmentDrafts(
  api: AttachmentApi,
  blobs: AttachmentBlobs,
): AttachmentDraftsController {
  const [state, dispatch] = useReducer(attachmentDraftsReducer, emptyAttachmentDrafts);
  const stateRef = useRef(state);
  stateRef.current = state;
  const payloads = useRef(new Map<string, Payload>());
  const previews = useRef(new Map<string, string>());
  const uploads = useRef(new Map<string, AbortController>());
  // Drafts not removed yet: a preparation or upload that outlives its draft is dropped.
  const live = useRef(new Set<string>());

  const forget = useCallback((localId: string) => {
    live.current.delete(localId);
    uploads.current.get(localId)?.abort();
    uploads.current.delete(localId);
    payloads.current.delete(localId);
    const preview = previews.current.get(localId);
    if (preview) URL.revokeObjectURL(preview);
    previews.current.delete(localId);
  }, []);

  useEffect(
    () => () => {
      for (const localId of [...live.current]) forget(localId);
    },
    [forget],
  );

  const upload = useCallback(
    async (localId: string, payload: Payload) => {
      const controller = new AbortController();
      uploads.current.set(localId, controller);
      dispatch({ type: 'uploading', localId, previewUrl: previews.current.get(localId) });
      try {
        const stored = await api.upload(payload.bytes, {
          type: payload.type,
          name: payload.name,
          signal: controller.signal,
        });
        if (live.current.has(localId)) dispatch({ type: 'uploaded', localId, stored });
      } catch (error) {
        if (!live.current.has(localId)) return;
        dispatch({
          type: 'failed',
          localId,
          failure:
            error instanceof ApiError
              ? { code: error.code, httpStatus: error.status }
              : { code: 'network' },
        });
      } finally {
        uploads.current.delete(localId);
      }
    },
    [api],
  );

  const prepare = useCallback(
    async (localId: string, file: File, kind: AttachmentKind) => {
      let payload: Payload;
      try {
        if (kind.kind === 'image') {
          const image = await prepareImage(file, kind.type);
          payload = { bytes: image.blob, type: image.type, name: file.name };
          if (!live.current.has(localId)) return;
          previews.current.set(localId, URL.createObjectURL(image.blob));
        } else {
          payload = { bytes: file, type: kind.type, name: file.name };
        }
      } catch (error) {
        if (!live.current.has(localId)) return;
        const reason = error instanceof ImagePreparationError ? error.reason : 'unreadable';
        dispatch({ type: 'failed', localId, failure: { code: reason } });
        return;
      }
      if (!live.current.has(localId)) return;
      payloads.current.set(localId, payload);
      await upload(localId, payload);
    },
    [upload],
  );

  const add = useCallback(
    (files: readonly File[]) => {
      const { admitted, refused } = admitFiles(files, stateRef.current.drafts.length);
      const added = admitted.map(({ file, kind }) => ({
        localId: crypto.randomUUID(),
        name: file.name,
        kind: kind.kind,
        file,
        fileKind: kind,
      }));
      for (const draft of added) live.current.add(draft.localId);
      dispatch({
        type: 'offered',
        added: added.map(({ localId, name, kind }) => ({ localId, name, kind })),
        refused,
      });
      for (const draft of added) void prepare(draft.localId, draft.file, draft.fileKind);
    },
    [prepare],
  );

  const remove = useCallback(
    (localId: string) => {
      forget(localId);
      dispatch({ type: 'removed', localId });
    },
    [forget],
  );

  const retry = useCallback(
    (localId: string) => {
      const payload = payloads.current.get(localId);
      if (payload) void upload(localId, payload);
    },
    [upload],
  );

  const dismissRefusals = useCallback(() => dispatch({ type: 'refusals_dismissed' }), []);

  const sent = useCallback(() => {
    for (const draft of stateRef.current.drafts) {
      const payload = payloads.current.get(draft.localId);
      if (draft.stored && payload) blobs.remember(draft.stored.id, payload.bytes);
      forget(draft.localId);
    }
    dispatch({ type: 'sent' });
  }, [blobs, forget]);

  return {
    ...state,
    toSend: attachmentsToSend(state.drafts),
    add,
    remove,
    retry,
    dismissRefusals,
    sent,
  };
}
