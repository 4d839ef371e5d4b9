import { InvalidCursorError } from '../../chat/ports.js';

/**
 * The opaque sidebar cursor: the last item's `updatedAt` and `conversationId`, base64url JSON.
 * The owner is deliberately not in it — it is always taken from the verified identity, so a
 * forged cursor can only move within the caller's own partition.
 */
export function encodeListCursor(key: { updatedAt: string; conversationId: string }): string {
  return Buffer.from(JSON.stringify([key.updatedAt, key.conversationId])).toString('base64url');
}

export function decodeListCursor(cursor: string): { updatedAt: string; conversationId: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string'
    ) {
      return { updatedAt: value[0], conversationId: value[1] };
    }
  } catch {
    // fall through: not JSON
  }
  throw new InvalidCursorError();
}
