import type { AttachmentRef } from '../../../functions/contract/attachments.js';
import type { FailureCode } from '../api/api-error.js';
import type { RefusedFile } from './attachment-rules.js';

/**
 * The files attached to the message being written, as plain data: each is prepared (an image
 * downscaled), uploaded, and then ready to be named in `attachmentIds` — or failed, to be retried
 * or removed. The message can be sent once every file is ready.
 */
export interface AttachmentDraft {
  readonly localId: string;
  readonly name: string;
  readonly kind: 'image' | 'text';
  readonly status: 'preparing' | 'uploading' | 'ready' | 'failed';
  /** A `blob:` URL of the downscaled image (what is sent), owned by the hook that made it. */
  readonly previewUrl?: string;
  /** What the server stored, once uploaded. */
  readonly stored?: AttachmentRef;
  /** Why the upload or the preparation failed. */
  readonly failure?: AttachmentFailure;
}

/** A failed upload: the API's code (and status), or why the browser could not read the image. */
export type AttachmentFailure =
  | { readonly code: FailureCode; readonly httpStatus?: number }
  | ImagePreparationFailure;

/** The browser could not prepare the image: too many pixels to decode, or not decodable. */
export interface ImagePreparationFailure {
  readonly code: 'too_many_pixels' | 'unreadable';
}

export function isImagePreparationFailure(
  failure: AttachmentFailure,
): failure is ImagePreparationFailure {
  return failure.code === 'too_many_pixels' || failure.code === 'unreadable';
}

export interface AttachmentDraftsState {
  readonly drafts: readonly AttachmentDraft[];
  /** Files refused before anything was read (wrong type, too large, too many), newest offer only. */
  readonly refused: readonly RefusedFile[];
}

export const emptyAttachmentDrafts: AttachmentDraftsState = { drafts: [], refused: [] };

export type AttachmentDraftsAction =
  | {
      readonly type: 'offered';
      readonly added: readonly Pick<AttachmentDraft, 'localId' | 'name' | 'kind'>[];
      readonly refused: readonly RefusedFile[];
    }
  | { readonly type: 'uploading'; readonly localId: string; readonly previewUrl?: string }
  | { readonly type: 'uploaded'; readonly localId: string; readonly stored: AttachmentRef }
  | { readonly type: 'failed'; readonly localId: string; readonly failure: AttachmentFailure }
  | { readonly type: 'removed'; readonly localId: string }
  | { readonly type: 'refusals_dismissed' }
  /** The message was sent with them: the composer starts empty. */
  | { readonly type: 'sent' };

export function attachmentDraftsReducer(
  state: AttachmentDraftsState,
  action: AttachmentDraftsAction,
): AttachmentDraftsState {
  const update = (localId: string, change: (draft: AttachmentDraft) => AttachmentDraft) => ({
    ...state,
    drafts: state.drafts.map((draft) => (draft.localId === localId ? change(draft) : draft)),
  });
  switch (action.type) {
    case 'offered':
      return {
        drafts: [
          ...state.drafts,
          ...action.added.map((draft) => ({ ...draft, status: 'preparing' as const })),
        ],
        refused: action.refused,
      };
    case 'uploading':
      return update(action.localId, ({ failure: _failure, ...draft }) => ({
        ...draft,
        status: 'uploading',
        ...(action.previewUrl !== undefined ? { previewUrl: action.previewUrl } : {}),
      }));
    case 'uploaded':
      return update(action.localId, (draft) => ({
        ...draft,
        status: 'ready',
        stored: action.stored,
      }));
    case 'failed':
      return update(action.localId, (draft) => ({
        ...draft,
        status: 'failed',
        failure: action.failure,
      }));
    case 'removed':
      return { ...state, drafts: state.drafts.filter((draft) => draft.localId !== action.localId) };
    case 'refusals_dismissed':
      return { ...state, refused: [] };
    case 'sent':
      return emptyAttachmentDrafts;
  }
}

/**
 * What a send carries: `undefined` with no files, the stored refs when every file is ready, and
 * `'pending'` while any is still preparing, uploading or failed (the send waits).
 */
export function attachmentsToSend(
  drafts: readonly AttachmentDraft[],
): readonly AttachmentRef[] | 'pending' | undefined {
  if (drafts.length === 0) return undefined;
  const stored = drafts.flatMap((draft) => (draft.stored ? [draft.stored] : []));
  return stored.length === drafts.length ? stored : 'pending';
}
