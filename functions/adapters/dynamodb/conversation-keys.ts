import { createHash } from 'node:crypto';
import { ConversationNotFoundError, type Owner, ownerKey } from '../../chat/ports.js';

const ulidPattern = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * The partition key of an owner's conversations. Rejects owners whose parts contain `#`: with one,
 * `a#b` + `c` and `a` + `b#c` would share a key, and one user could read another's history.
 */
export function ownerIdOf(owner: Owner): string {
  if (owner.tenantId.includes('#') || owner.userId.includes('#') || !owner.userId) {
    throw new Error('Owner ids must be non-empty and must not contain "#"');
  }
  return ownerKey(owner);
}

/** True for a well-formed conversation id (ULID). Anything else cannot exist: callers answer not-found. */
export function isConversationId(value: string): boolean {
  return ulidPattern.test(value);
}

/**
 * The owner key of an existing-conversation operation. A malformed id cannot exist, so it is
 * not-found — the same answer as a missing or foreign conversation.
 */
export function ownerIdForConversation(owner: Owner, conversationId: string): string {
  const ownerId = ownerIdOf(owner);
  if (!isConversationId(conversationId)) throw new ConversationNotFoundError();
  return ownerId;
}

/** Partition key of a conversation's turns: `ownerId#conversationId` — the owner is part of every key. */
export function conversationKeyOf(ownerId: string, conversationId: string): string {
  return `${ownerId}#${conversationId}`;
}

/**
 * Key of the idempotency marker for one owner's `clientMessageId`, in the Turns table at seq 0.
 * The id is hashed: any client string fits, and the key can never look like a conversation key
 * (those end in a ULID).
 */
export function clientMessageKeyOf(ownerId: string, clientMessageId: string) {
  const digest = createHash('sha256').update(clientMessageId).digest('base64url');
  return { conversationKey: `${ownerId}#client-message#${digest}`, seq: 0 };
}

/**
 * `ClientRequestToken` for a `clientMessageId` (at most 36 characters). Tokens are account-wide,
 * so the owner is hashed in: two users picking the same id never share a token.
 */
export function clientRequestTokenOf(ownerId: string, clientMessageId: string): string {
  return createHash('sha256').update(`${ownerId}\n${clientMessageId}`).digest('hex').slice(0, 36);
}
