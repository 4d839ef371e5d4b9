import type { AttachmentStore, StoredAttachment } from '../../functions/attachments/ports.js';
import { ownerKey } from '../../functions/chat/ports.js';

/**
 * The attachment store in memory, keyed by owner and id as the S3 adapter's keys are; `objects`
 * lets a test see that nothing was stored.
 */
export function createInMemoryAttachmentStore(): AttachmentStore & {
  readonly objects: Map<string, StoredAttachment>;
} {
  const objects = new Map<string, StoredAttachment>();
  const keyOf = (owner: Parameters<typeof ownerKey>[0], id: string) => `${ownerKey(owner)}/${id}`;
  return {
    objects,
    put: async (owner, attachment) => {
      objects.set(keyOf(owner, attachment.ref.id), structuredClone(attachment));
    },
    get: async (owner, id) => objects.get(keyOf(owner, id)),
    describe: async (owner, id) => objects.get(keyOf(owner, id))?.ref,
    remove: async (owner, ids) => {
      for (const id of ids) objects.delete(keyOf(owner, id));
    },
  };
}
