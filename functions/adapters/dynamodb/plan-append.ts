import type { AppendResult, Turn } from '../../chat/ports.js';
import type { CommitPlan, TransactItem } from './commit-with-version.js';
import { type ConversationItem, toConversationSummary } from './conversation-item.js';
import {
  clientMessageKeyOf,
  clientRequestTokenOf,
  conversationKeyOf,
} from './conversation-keys.js';
import { cacheKeyOf, expiresAtFrom, type StoreContext } from './store-context.js';
import { advanceCachedConversation } from './turn-cache.js';
import { type TurnItem, toTurn } from './turn-item.js';
import { updateConversationAtVersion } from './update-conversation-at-version.js';

export interface AppendSpec {
  readonly ownerId: string;
  readonly conversationId: string;
  /** The row the commit is conditioned on; undefined creates the conversation. */
  readonly state: ConversationItem | undefined;
  /** Title of a conversation created by this append. */
  readonly title: string;
  readonly turn: Omit<Turn, 'seq' | 'createdAt'>;
  /** `openInquiryId` once this turn is committed (undefined closes the inquiry). */
  readonly openInquiryIdAfter: string | undefined;
  readonly now: Date;
}

/**
 * One append as one transaction: the conversation row (version and turnCount bumped, conditioned
 * on the version read — or created, conditioned on absence), the turn at `seq = turnCount + 1`
 * (attribute_not_exists), and for a `clientMessageId` its idempotency marker (attribute_not_exists).
 * The sequence number is decided by the same condition as the version, so numbering order is
 * commit order and two writers can never both take a number.
 */
export function planAppend(context: StoreContext, spec: AppendSpec): CommitPlan<AppendResult> {
  const { ownerId, conversationId, state, now } = spec;
  const createdAt = now.toISOString();
  const expiresAt = expiresAtFrom(context, now);
  const seq = (state?.turnCount ?? 0) + 1;
  const activity = {
    turnCount: seq,
    updatedAt: createdAt,
    expiresAt,
    openInquiryId: spec.openInquiryIdAfter,
  };
  let conversationWrite: TransactItem;
  let after: ConversationItem;
  if (state) {
    ({ item: conversationWrite, after } = updateConversationAtVersion(context, state, activity));
  } else {
    after = withoutUndefined({
      ownerId,
      conversationId,
      title: spec.title,
      createdAt,
      version: 1,
      ...activity,
    });
    conversationWrite = {
      Put: {
        TableName: context.tables.conversations,
        Item: after,
        ConditionExpression: 'attribute_not_exists(ownerId)',
      },
    };
  }
  const turnItem: TurnItem = withoutUndefined({
    conversationKey: conversationKeyOf(ownerId, conversationId),
    seq,
    ...spec.turn,
    createdAt,
    expiresAt,
  });
  const items: TransactItem[] = [
    conversationWrite,
    {
      Put: {
        TableName: context.tables.turns,
        Item: turnItem,
        ConditionExpression: 'attribute_not_exists(conversationKey)',
      },
    },
  ];
  const clientMessageId = spec.turn.clientMessageId;
  if (clientMessageId !== undefined) {
    items.push({
      Put: {
        TableName: context.tables.turns,
        Item: {
          ...clientMessageKeyOf(ownerId, clientMessageId),
          conversationId,
          turnSeq: seq,
          expiresAt,
        },
        ConditionExpression: 'attribute_not_exists(conversationKey)',
      },
    });
  }
  return {
    items,
    ...(clientMessageId !== undefined
      ? { markerIndex: 2, clientRequestToken: clientRequestTokenOf(ownerId, clientMessageId) }
      : {}),
    committed() {
      const key = cacheKeyOf(ownerId, conversationId);
      if (state) {
        advanceCachedConversation(context.cache, key, state.version, after, (turns) => [
          ...turns,
          turnItem,
        ]);
      } else {
        context.cache.set(key, { conversation: after, turns: [turnItem] });
      }
      return {
        conversation: toConversationSummary(after),
        turn: toTurn(turnItem),
        duplicate: false,
      };
    },
  };
}

/** DynamoDB rejects `undefined` attribute values; optional fields are simply left out. */
export function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}
