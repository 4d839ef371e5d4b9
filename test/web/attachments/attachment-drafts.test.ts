import { describe, expect, it } from 'vitest';
import type { AttachmentRef } from '../../../functions/contract/attachments.js';
import type { AttachmentApi } from '../../../web/src/api/create-attachment-api.js';
import { createAttachmentBlobs } from '../../../web/src/attachments/attachment-blobs.js';
import {
  type AttachmentDraftsAction,
  attachmentDraftsReducer,
  attachmentsToSend,
  emptyAttachmentDrafts,
} from '../../../web/src/attachments/attachment-drafts.js';

const stored = (id: string): AttachmentRef => ({
  id,
  type: 'image/png',
  size: 48_000,
  width: 1280,
  height: 720,
});

const run = (...actions: AttachmentDraftsAction[]) =>
  actions.reduce(attachmentDraftsReducer, emptyAttachmentDrafts);

describe('attachment drafts', () => {
  const offered: AttachmentDraftsAction = {
    type: 'offered',
    added: [
      { localId: 'a', name: 'image.png', kind: 'image' },
      { localId: 'b', name: 'error.log', kind: 'text' },
    ],
    refused: [{ name: 'setup.exe', problem: { code: 'wrong_type' } }],
  };

  it('holds the send until every file is uploaded, then sends their refs in order', () => {
    const uploading = run(offered, { type: 'uploading', localId: 'a', previewUrl: 'blob:a' });
    expect(uploading.drafts.map((d) => d.status)).toEqual(['uploading', 'preparing']);
    expect(attachmentsToSend(uploading.drafts)).toBe('pending');
    const ready = run(
      offered,
      { type: 'uploaded', localId: 'b', stored: stored('B') },
      { type: 'uploaded', localId: 'a', stored: stored('A') },
    );
    expect(attachmentsToSend(ready.drafts)).toEqual([stored('A'), stored('B')]);
    expect(attachmentsToSend(emptyAttachmentDrafts.drafts)).toBeUndefined();
  });

  it('keeps a failed upload pending until it is retried or removed', () => {
    const failed = run(
      offered,
      { type: 'uploaded', localId: 'a', stored: stored('A') },
      {
        type: 'failed',
        localId: 'b',
        failure: { code: 'network' },
      },
    );
    expect(failed.drafts[1]).toMatchObject({ status: 'failed', failure: { code: 'network' } });
    expect(attachmentsToSend(failed.drafts)).toBe('pending');
    const retried = attachmentDraftsReducer(failed, { type: 'uploading', localId: 'b' });
    expect(retried.drafts[1]).toEqual({
      localId: 'b',
      name: 'error.log',
      kind: 'text',
      status: 'uploading',
    });
    const removed = attachmentDraftsReducer(failed, { type: 'removed', localId: 'b' });
    expect(attachmentsToSend(removed.drafts)).toEqual([stored('A')]);
  });

  it('shows the refusals of the latest offer only, until dismissed', () => {
    const state = run(offered);
    expect(state.refused).toEqual([{ name: 'setup.exe', problem: { code: 'wrong_type' } }]);
    expect(run(offered, { type: 'offered', added: [], refused: [] }).refused).toEqual([]);
    expect(run(offered, { type: 'refusals_dismissed' }).refused).toEqual([]);
  });

  it('starts empty once the message is sent', () => {
    expect(run(offered, { type: 'sent' })).toEqual(emptyAttachmentDrafts);
  });
});

describe('createAttachmentBlobs', () => {
  function countingApi() {
    const downloads: string[] = [];
    const api: AttachmentApi = {
      upload: () => Promise.reject(new Error('not used')),
      download: async (id) => {
        downloads.push(id);
        if (id === 'missing') throw new Error('404');
        return new Blob([id]);
      },
    };
    return { api, downloads };
  }

  it('shows the bytes just uploaded without fetching them, and fetches any other once', async () => {
    const { api, downloads } = countingApi();
    const blobs = createAttachmentBlobs(api);
    const sent = new Blob(['png']);
    blobs.remember('A', sent);
    expect(await blobs.get('A')).toBe(sent);
    await blobs.get('B');
    await blobs.get('B');
    expect(downloads).toEqual(['B']);
  });

  it('asks again after a failed fetch, and keeps only the newest', async () => {
    const { api, downloads } = countingApi();
    const blobs = createAttachmentBlobs(api, 2);
    await expect(blobs.get('missing')).rejects.toThrow('404');
    await expect(blobs.get('missing')).rejects.toThrow('404');
    await blobs.get('1');
    await blobs.get('2');
    await blobs.get('3');
    await blobs.get('1');
    expect(downloads).toEqual(['missing', 'missing', '1', '2', '3', '1']);
  });
});
