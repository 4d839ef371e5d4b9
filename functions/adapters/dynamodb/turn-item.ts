import type { Turn } from '../../chat/ports.js';

/** A `Turns` row as stored: the domain turn plus its keys and TTL. */
export interface TurnItem extends Turn {
  readonly conversationKey: string;
  /** TTL, epoch seconds: a turn is kept `retentionDays` after it was written. */
  readonly expiresAt: number;
}

export function toTurn(item: TurnItem): Turn {
  const { conversationKey: _key, expiresAt: _expiresAt, ...turn } = item;
  return turn;
}

/**
 * Turns whose TTL has passed. DynamoDB deletes expired items lazily (within days), so reads drop
 * them themselves: retention means the same thing whether or not the sweeper has run.
 */
export function isExpired(item: { readonly expiresAt?: number }, nowSeconds: number): boolean {
  return item.expiresAt !== undefined && item.expiresAt <= nowSeconds;
}
