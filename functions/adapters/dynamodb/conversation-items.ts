import { createHash } from 'node:crypto';
import { ConversationNotFoundError, TurnTooLargeError } from '../../chat/errors.js';
import { type ConversationSummary, type Owner, ownerKey, type Turn } from '../../chat/ports.js';
import { isUlid } from '../../contract/ids.js';
import type { PublishedKnowledge } from '../../contract/knowledge.js';

/**
 * The conversation store's items as stored: the rows of the two tables (`table-definitions.ts`),
 * their keys, their retention and their size limits.
 */

// --- Rows ----------------------------------------------------------------------------------------

/** A `Conversations` row as stored. */
export interface ConversationItem {
  readonly ownerId: string;
  readonly conversationId: string;
  readonly title: string;
  readonly createdAt: string;
  /** Last append (the sidebar order); a rename does not move it. */
  readonly updatedAt: string;
  readonly version: number;
  readonly turnCount: number;
  /** The inquiry awaiting a reply to its clarification (`placeUserTurn`). */
  readonly openInquiryId?: string;
  /** The inquiry of the latest user turn (`openInquiryAfterAssistantTurn`). */
  readonly latestInquiryId?: string;
  /**
   * The latest user turn's seq and kind (its inquiry is `latestInquiryId`): the only turn a
   * regenerate or edit may supersede (`placeSupersedingTurn`). Set by every user append; absent
   * on rows whose last user turn was written before it existed, which refuse superseding.
   */
  readonly latestUserTurn?: { readonly seq: number; readonly kind: 'question' | 'option' };
  /**
   * What sidebar search matches (`searchKeyOf` of the title, and of the user's messages in order,
   * capped at `searchTextLimit` characters): set by the commits that change them. Absent on rows
   * written before search existed; search falls back to the raw title there.
   */
  readonly titleKey?: string;
  readonly questionText?: string;
  /**
   * The user turn whose answer is being generated, its inquiry, and the end of the generating
   * request's lease: `seq` and `inquiryId` are set by the commit of every user turn that will be
   * answered and removed by the commit of the answer to that turn (versioned); `until` is renewed
   * by the holder's heartbeat outside commits (`renewGeneration`), so a cached row's `until` may
   * be older than the stored one. A reload shows it as in flight; a regenerate is refused.
   */
  readonly answering?: AnsweringState;
  /**
   * The inquiries published as knowledge tickets, by inquiry id (ADR 0011): replaced whole by
   * the versioned commit that adds one, so "at most one ticket per inquiry" is decided on the row
   * the commit is conditioned on.
   */
  readonly knowledge?: Readonly<Record<string, Omit<PublishedKnowledge, 'inquiryId'>>>;
  /**
   * The user turns whose answers staff asked to stop (a number set); control state, not history,
   * so it never bumps `version`. Rows written before stops named their answer may still carry a
   * `stopRequestedAt` time, which nothing reads any more.
   */
  readonly stoppedSeqs?: ReadonlySet<number>;
  /**
   * TTL, epoch seconds: `retentionDays` after the last commit. The whole conversation expires
   * with this row; the retention sweeper (`expire-conversations.ts`) then deletes its turns.
   */
  readonly expiresAt: number;
}

export interface AnsweringState {
  readonly seq: number;
  readonly inquiryId: string;
  /** ISO time. */
  readonly until: string;
}

export function toConversationSummary(item: ConversationItem): ConversationSummary {
  return {
    conversationId: item.conversationId,
    title: item.title,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
    version: item.version,
    turnCount: item.turnCount,
    ...(item.openInquiryId ? { openInquiryId: item.openInquiryId } : {}),
    ...(item.latestInquiryId ? { latestInquiryId: item.latestInquiryId } : {}),
    ...(item.answering ? { answering: item.answering } : {}),
    ...(item.knowledge
      ? {
          knowledge: Object.entries(item.knowledge)
            .map(([inquiryId, published]) => ({ inquiryId, ...published }))
            .sort((a, b) => a.publishedAt.localeCompare(b.publishedAt)),
        }
      : {}),
  };
}

/** A `Turns` row as stored: the domain turn plus its key. */
export interface TurnItem extends Turn {
  readonly conversationKey: string;
  /**
   * Only on turns written before retention became per conversation: each carried its own TTL,
   * `retentionDays` after it was written. New turns have none; they go with their conversation.
   */
  readonly expiresAt?: number;
}

export function toTurn(item: TurnItem): Turn {
  const { conversationKey: _key, expiresAt: _expiresAt, ...turn } = item;
  return turn;
}

// --- Keys ----------------------------------------------------------------------------------------

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
  return isUlid(value);
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

// --- Retention -----------------------------------------------------------------------------------

/**
 * The part of the store's context (`StoreContext`) that item times come from. Declared here, not
 * imported, so the item shapes depend on nothing else of the adapter.
 */
export interface StoreRetention {
  readonly now: () => Date;
  readonly retentionSeconds: number;
}

/**
 * TTL value of a conversation row committed now: epoch seconds, `retentionDays` ahead. Every
 * commit sets it again, so a conversation lasts `retentionDays` after its last activity.
 */
export function expiresAtFrom(context: StoreRetention, now: Date): number {
  return Math.floor(now.getTime() / 1000) + context.retentionSeconds;
}

export function nowSeconds(context: StoreRetention): number {
  return Math.floor(context.now().getTime() / 1000);
}

/**
 * Items whose TTL has passed. DynamoDB deletes expired items lazily (within days), so reads drop
 * them themselves: retention means the same thing whether or not the sweeper has run.
 */
export function isExpired(item: { readonly expiresAt?: number }, nowSeconds: number): boolean {
  return item.expiresAt !== undefined && item.expiresAt <= nowSeconds;
}

// --- Search -------------------------------------------------------------------------------------

/**
 * Text as search compares it: NFKC (full-width ＡＢＣ and half-width ｶﾀｶﾅ become one form),
 * lower case, runs of white space as one space. Substring search over this finds "vpn" in
 * "ＶＰＮにつながらない".
 */
export function searchKeyOf(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ').trim();
}

/**
 * Characters of the user's messages a row keeps for search: the first messages of a
 * conversation say what it is about, and a list query reads every row it scans whole.
 */
export const searchTextLimit = 2000;

/** `questionText` after a user message: appended while there is room. */
export function questionTextAfter(current: string | undefined, message: string): string {
  const joined = current ? `${current}\n${searchKeyOf(message)}` : searchKeyOf(message);
  return Array.from(joined).slice(0, searchTextLimit).join('');
}

// --- Sizes ---------------------------------------------------------------------------------------

/**
 * Size limits checked before any write, so DynamoDB's 400 KB item limit is never met at run time
 * (it would cancel the whole transaction). Text + result + keys and attribute names stay well
 * below 400 KB. Bytes are UTF-8: a Japanese character is 3 bytes.
 */
export const turnSizeLimits = {
  textBytes: 100_000,
  resultBytes: 250_000,
  titleCharacters: 200,
} as const;

/** Throws `TurnTooLargeError` when a turn's text or structured result is too large to store. */
export function assertTurnFits(text: string, resultJson: string | undefined): void {
  const textBytes = Buffer.byteLength(text, 'utf8');
  if (textBytes > turnSizeLimits.textBytes) {
    throw new TurnTooLargeError(
      `Message is ${textBytes} bytes (UTF-8); the limit is ${turnSizeLimits.textBytes} bytes`,
    );
  }
  const resultBytes = resultJson === undefined ? 0 : Buffer.byteLength(resultJson, 'utf8');
  if (resultBytes > turnSizeLimits.resultBytes) {
    throw new TurnTooLargeError(
      `Answer is ${resultBytes} bytes as JSON; the limit is ${turnSizeLimits.resultBytes} bytes`,
    );
  }
}

/** Throws `TurnTooLargeError` for a title longer than the sidebar can hold. */
export function assertTitleFits(title: string): void {
  const length = Array.from(title).length;
  if (length > turnSizeLimits.titleCharacters) {
    throw new TurnTooLargeError(
      `Title is ${length} characters; the limit is ${turnSizeLimits.titleCharacters}`,
    );
  }
}
