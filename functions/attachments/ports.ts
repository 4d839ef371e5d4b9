import type { Owner } from '../chat/ports.js';
import type { AttachmentRef, TextEncoding } from '../contract/attachments.js';

/**
 * Where attachments' bytes live (ADR 0030): an object store, never the conversation tables. An
 * attachment is its owner's: every read names the owner, and another owner's id reads as absent.
 */
export interface AttachmentStore {
  /** Stores an accepted file under its owner. */
  put(owner: Owner, attachment: StoredAttachment): Promise<void>;
  /** The attachment with its bytes, or undefined when the owner has none with that id. */
  get(owner: Owner, id: string): Promise<StoredAttachment | undefined>;
  /** What a turn keeps of it (no bytes), or undefined when the owner has none with that id. */
  describe(owner: Owner, id: string): Promise<AttachmentRef | undefined>;
  /** Deletes the owner's attachments with these ids (missing ones are no error). */
  remove(owner: Owner, ids: readonly string[]): Promise<void>;
}

export interface StoredAttachment {
  readonly ref: AttachmentRef;
  readonly bytes: Uint8Array;
  readonly textEncoding?: TextEncoding;
}

/** What a chat needs to read a message's attachments. */
export interface ChatAttachments {
  readonly store: AttachmentStore;
  /** Output tokens of the vision step (`ATTACHMENT_READING_MAX_TOKENS`). */
  readonly readingMaxTokens: number;
}
