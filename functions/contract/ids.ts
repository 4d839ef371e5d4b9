import * as z from 'zod';

/**
 * The ids of the wire contract. Conversations and inquiries are named by ULIDs (Crockford
 * base32, upper case, no I, L, O or U), written by the store; anything else cannot name one, so
 * the API answers not-found for a path and 400 for a body field.
 */

/**
 * A ULID as a regular-expression source without anchors, for building larger patterns (the
 * API's route table puts it inside a path).
 */
export const ULID_SOURCE = '[0-9A-HJKMNP-TV-Z]{26}';

const ULID_PATTERN = new RegExp(`^${ULID_SOURCE}$`);

/**
 * True for a well-formed ULID.
 * @example
 * if (!isUlid(conversationId)) throw new ConversationNotFoundError();
 */
export function isUlid(value: string): boolean {
  return ULID_PATTERN.test(value);
}

/** A ULID field of a request body; `name` is the field, for the 400 message. */
export const ulidSchema = (name: string) =>
  z.string().regex(ULID_PATTERN, `${name} must be a ULID`);

/** The id of a conversation, as in `/api/conversations/{id}` and request bodies. */
export const conversationIdSchema = ulidSchema('conversationId');

/** The id of an inquiry within a conversation. */
export const inquiryIdSchema = ulidSchema('inquiryId');
