import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { ConversationNotFoundError } from '../../chat/errors.js';
import {
  type InquiryState,
  openInquiryAfterAssistantTurn,
  placeSupersedingTurn,
  placeUserTurn,
  type SupersedingPlacement,
  titleFromText,
  type UserTurnPlacement,
} from '../../chat/inquiry-rules.js';
import type {
  AppendAssistantTurnInput,
  AppendResult,
  AppendUserTurnInput,
  GenerationClaim,
  GenerationRenewal,
  Owner,
  Turn,
} from '../../chat/ports.js';
import {
  type AnsweringState,
  assertTurnFits,
  type ConversationItem,
  clientMessageKeyOf,
  clientRequestTokenOf,
  conversationKeyOf,
  expiresAtFrom,
  isConversationId,
  ownerIdForConversation,
  ownerIdOf,
  questionTextAfter,
  searchKeyOf,
  type TurnItem,
  toConversationSummary,
  toTurn,
} from './conversation-items.js';
import type { StoreContext } from './store-context.js';
import { advanceCachedConversation, cacheKeyOf } from './turn-cache.js';
import {
  type CommitPlan,
  commitWithVersion,
  type ExtraCondition,
  readConversationItem,
  type TransactItem,
  updateConversationAtVersion,
} from './versioned-commit.js';

/**
 * Stores what the user said. The inquiry is decided by the core's `placeUserTurn` from the state
 * being committed against, so a concurrent answer cannot slip between decision and write. Without
 * `conversationId` the conversation is created in the same commit.
 */
export async function appendUserTurn(
  context: StoreContext,
  owner: Owner,
  input: AppendUserTurnInput,
): Promise<AppendResult> {
  const ownerId = ownerIdOf(owner);
  assertTurnFits(input.text, undefined);
  if (input.conversationId !== undefined && !isConversationId(input.conversationId)) {
    throw new ConversationNotFoundError();
  }
  const { clientMessageId } = input;
  return commitWithVersion(context, {
    ownerId,
    ...(input.conversationId !== undefined ? { conversationId: input.conversationId } : {}),
    plan(state) {
      const now = context.now();
      let placement: UserTurnPlacement | SupersedingPlacement;
      if (input.supersedes === undefined) {
        placement = placeUserTurn(state?.openInquiryId, input.inquiry ?? 'continue', () =>
          ulid(now.getTime()),
        );
      } else {
        try {
          placement = placeSupersedingTurn(
            latestUserTurnOf(state),
            input.supersedes,
            state?.answering,
            now,
          );
        } catch (refusal) {
          return planRefusal(context, state, refusal, clientMessageId);
        }
      }
      return planAppend(context, {
        ownerId,
        conversationId: input.conversationId ?? ulid(now.getTime()),
        state,
        ...(input.supersedes !== undefined
          ? { alsoRequire: answerNotInFlight(input.supersedes, now) }
          : {}),
        title: titleFromText(input.text),
        turn: {
          role: 'user',
          kind: placement.kind,
          inquiryId: placement.inquiryId,
          text: input.text,
          status: 'complete',
          ...(clientMessageId !== undefined ? { clientMessageId } : {}),
          ...('supersedes' in placement ? { supersedes: placement.supersedes } : {}),
          // References only (id, type, size, pixels, name): the bytes are in the attachment store.
          ...(input.attachments?.length ? { attachments: [...input.attachments] } : {}),
        },
        // The message is the reply the open inquiry awaited (or starts a new one): none stays open.
        inquiryAfter: { latestInquiryId: placement.inquiryId },
        generation: input.generation,
        // Every request that will generate announces it, with or without a clientMessageId.
        answering: input.generation
          ? { inquiryId: placement.inquiryId, until: input.generation.until.toISOString() }
          : undefined,
        now,
      });
    },
    ...(clientMessageId !== undefined
      ? { duplicate: () => findDuplicateTurn(context, ownerId, clientMessageId) }
      : {}),
  });
}

/**
 * What a regenerate or edit also requires of the row it commits on: the answer to the turn it
 * supersedes is not in flight. `placeSupersedingTurn` checked the same on the planned state, but
 * a lease renewal moves `answering.until` without a version bump, so a cached row may show a
 * lapsed lease that is in fact renewed; then this fails and the retry decides from the current
 * row (and refuses).
 */
function answerNotInFlight(supersedes: number, now: Date): ExtraCondition {
  return {
    expression:
      'attribute_not_exists(#answering) OR #answering.#answeringSeq <> :answeringSeq OR #answering.#answeringUntil <= :answeringNow',
    names: { '#answering': 'answering', '#answeringSeq': 'seq', '#answeringUntil': 'until' },
    values: { ':answeringSeq': supersedes, ':answeringNow': now.toISOString() },
  };
}

function latestUserTurnOf(state: ConversationItem | undefined) {
  if (!state?.latestUserTurn || state.latestInquiryId === undefined) return undefined;
  return { ...state.latestUserTurn, inquiryId: state.latestInquiryId };
}

/**
 * A refused regenerate or edit is also decided against the committed state: the plan only checks
 * the version it was decided on (and, with a `clientMessageId`, that the message was not stored
 * already). If the check holds, the refusal stands; if the version moved — the state was a stale
 * cached row — the commit retries from the current row; if the marker exists, the first copy of
 * this very request was stored and its turn is returned instead (a retried regenerate is not
 * refused for having succeeded).
 */
function planRefusal(
  context: StoreContext,
  state: ConversationItem | undefined,
  refusal: unknown,
  clientMessageId: string | undefined,
): CommitPlan<AppendResult> {
  if (!state) throw refusal;
  const items: TransactItem[] = [
    {
      ConditionCheck: {
        TableName: context.tables.conversations,
        Key: { ownerId: state.ownerId, conversationId: state.conversationId },
        ConditionExpression: '#version = :expected',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':expected': state.version },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
  ];
  if (clientMessageId !== undefined) {
    items.push({
      ConditionCheck: {
        TableName: context.tables.turns,
        Key: clientMessageKeyOf(state.ownerId, clientMessageId),
        ConditionExpression: 'attribute_not_exists(conversationKey)',
      },
    });
  }
  return {
    items,
    ...(clientMessageId !== undefined ? { markerIndex: 1 } : {}),
    committed() {
      throw refusal;
    },
  };
}

/**
 * Stores the assistant's answer; the open inquiry afterwards is the core's
 * `openInquiryAfterAssistantTurn`, applied to the version being committed (only a complete
 * clarification of the latest inquiry leaves one open).
 */
export async function appendAssistantTurn(
  context: StoreContext,
  owner: Owner,
  input: AppendAssistantTurnInput,
): Promise<AppendResult> {
  const ownerId = ownerIdOf(owner);
  // Round-trip through JSON: validates the size as stored and drops `undefined` fields.
  const resultJson = input.result === undefined ? undefined : JSON.stringify(input.result);
  assertTurnFits(input.text, resultJson);
  if (!isConversationId(input.conversationId)) throw new ConversationNotFoundError();
  const result = resultJson === undefined ? undefined : JSON.parse(resultJson);
  return commitWithVersion(context, {
    ownerId,
    conversationId: input.conversationId,
    plan(state) {
      return planAppend(context, {
        ownerId,
        conversationId: input.conversationId,
        state,
        title: '',
        turn: {
          role: 'assistant',
          kind: input.kind,
          inquiryId: input.inquiryId,
          text: input.text,
          ...(result !== undefined ? { result } : {}),
          status: input.status,
          ...(input.modelId ? { modelId: input.modelId } : {}),
          ...(input.usage ? { usage: input.usage } : {}),
          ...(input.attachmentReading ? { attachmentReading: input.attachmentReading } : {}),
          ...(input.notices ? { notices: input.notices } : {}),
        },
        inquiryAfter: {
          openInquiryId: openInquiryAfterAssistantTurn(
            {
              openInquiryId: state?.openInquiryId,
              // Rows written before `latestInquiryId` existed opened the inquiry on the user turn.
              latestInquiryId: state?.latestInquiryId ?? state?.openInquiryId,
            },
            input,
          ),
          latestInquiryId: state?.latestInquiryId,
        },
        // The answer to the turn being answered ends that; an answer to an older one leaves it.
        clearAnswering:
          state?.answering !== undefined &&
          (input.answersSeq === undefined
            ? state.answering.inquiryId === input.inquiryId
            : state.answering.seq === input.answersSeq),
        now: context.now(),
      });
    },
  });
}

interface AppendSpec {
  readonly ownerId: string;
  readonly conversationId: string;
  /** The row the commit is conditioned on; undefined creates the conversation. */
  readonly state: ConversationItem | undefined;
  /** Title of a conversation created by this append. */
  readonly title: string;
  readonly turn: Omit<Turn, 'seq' | 'createdAt'>;
  /** The inquiry state once this turn is committed (an undefined field is removed). */
  readonly inquiryAfter: InquiryState;
  /** Claimed on the idempotency marker in the same commit (a user turn with `clientMessageId`). */
  readonly generation?: GenerationClaim;
  /** A user turn whose answer the caller generates now (`ConversationItem.answering`). */
  readonly answering?: Omit<AnsweringState, 'seq'>;
  /**
   * The answer to the turn `answering` names: removes it. Otherwise `answering` is not written
   * at all — never back from a cached row, whose `until` may be older than a renewed lease.
   */
  readonly clearAnswering?: boolean;
  /** A further condition on the conversation row (`updateConversationAtVersion`). */
  readonly alsoRequire?: ExtraCondition;
  readonly now: Date;
}

/**
 * One append as one transaction: the conversation row (version and turnCount bumped, conditioned
 * on the version read — or created, conditioned on absence), the turn at `seq = turnCount + 1`
 * (attribute_not_exists), and for a `clientMessageId` its idempotency marker (attribute_not_exists).
 * The sequence number is decided by the same condition as the version, so numbering order is
 * commit order and two writers can never both take a number.
 */
function planAppend(context: StoreContext, spec: AppendSpec): CommitPlan<AppendResult> {
  const { ownerId, conversationId, state, now } = spec;
  const createdAt = now.toISOString();
  const seq = (state?.turnCount ?? 0) + 1;
  const activity = {
    turnCount: seq,
    updatedAt: createdAt,
    ...(spec.turn.role === 'user'
      ? {
          questionText: questionTextAfter(state?.questionText, spec.turn.text),
          latestUserTurn: { seq, kind: spec.turn.kind as 'question' | 'option' },
        }
      : {}),
    openInquiryId: spec.inquiryAfter.openInquiryId,
    latestInquiryId: spec.inquiryAfter.latestInquiryId,
    ...(spec.answering
      ? { answering: { ...spec.answering, seq } }
      : spec.clearAnswering
        ? { answering: undefined }
        : {}),
  };
  let conversationWrite: TransactItem;
  let after: ConversationItem;
  if (state) {
    // Also moves the conversation's expiresAt: retention counts from the last activity.
    ({ item: conversationWrite, after } = updateConversationAtVersion(
      context,
      state,
      activity,
      now,
      spec.alsoRequire,
    ));
  } else {
    after = withoutUndefined({
      ownerId,
      conversationId,
      title: spec.title,
      titleKey: searchKeyOf(spec.title),
      createdAt,
      version: 1,
      ...activity,
      expiresAt: expiresAtFrom(context, now),
    });
    conversationWrite = {
      Put: {
        TableName: context.tables.conversations,
        Item: after,
        ConditionExpression: 'attribute_not_exists(ownerId)',
      },
    };
  }
  // No TTL of its own: a turn lives as long as its conversation row (retention per conversation).
  const turnItem: TurnItem = withoutUndefined({
    conversationKey: conversationKeyOf(ownerId, conversationId),
    seq,
    ...spec.turn,
    createdAt,
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
          // A marker only has to outlive client retries (minutes); it keeps a write-time TTL, so
          // it disappears even if the retention sweeper never runs for its conversation.
          expiresAt: expiresAtFrom(context, now),
          ...(spec.generation
            ? {
                generationHolder: spec.generation.holder,
                generationUntil: spec.generation.until.getTime(),
              }
            : {}),
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
function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;
}

/**
 * The idempotency marker of one owner's `clientMessageId`: which turn it stored, and who is
 * generating its answer until when (epoch ms) — one generation per message, however many retries.
 */
interface ClientMessageMarker {
  readonly conversationId: string;
  readonly turnSeq: number;
  readonly generationHolder?: string;
  readonly generationUntil?: number;
}

/**
 * The turn an earlier request stored for this owner's `clientMessageId`, found through its
 * idempotency marker; `undefined` when there is no marker (the message was never stored).
 */
async function findDuplicateTurn(
  context: StoreContext,
  ownerId: string,
  clientMessageId: string,
): Promise<AppendResult | undefined> {
  const { Item } = await context.documents.send(
    new GetCommand({
      TableName: context.tables.turns,
      Key: clientMessageKeyOf(ownerId, clientMessageId),
      ConsistentRead: true,
    }),
  );
  const marker = Item as ClientMessageMarker | undefined;
  if (!marker) return undefined;
  const conversation = await readConversationItem(context, ownerId, marker.conversationId);
  const turn = conversation
    ? ((
        await context.documents.send(
          new GetCommand({
            TableName: context.tables.turns,
            Key: {
              conversationKey: conversationKeyOf(ownerId, marker.conversationId),
              seq: marker.turnSeq,
            },
            ConsistentRead: true,
          }),
        )
      ).Item as TurnItem | undefined)
    : undefined;
  // The conversation was deleted between the marker check and now.
  if (!conversation || !turn) throw new ConversationNotFoundError();
  return { conversation: toConversationSummary(conversation), turn: toTurn(turn), duplicate: true };
}

/**
 * Takes the generation claim on a stored message's marker: only when nobody holds it, or the
 * holder's lease lapsed (a function that died mid-answer neither renews nor releases it). One
 * conditional update, so of several retries exactly one wins.
 */
export async function claimGeneration(
  context: StoreContext,
  owner: Owner,
  clientMessageId: string,
  claim: GenerationClaim,
): Promise<boolean> {
  try {
    await context.documents.send(
      new UpdateCommand({
        TableName: context.tables.turns,
        Key: clientMessageKeyOf(ownerIdOf(owner), clientMessageId),
        UpdateExpression: 'SET generationHolder = :holder, generationUntil = :until',
        ConditionExpression:
          'attribute_exists(conversationKey) AND (attribute_not_exists(generationUntil) OR generationUntil < :now)',
        ExpressionAttributeValues: {
          ':holder': claim.holder,
          ':until': claim.until.getTime(),
          ':now': context.now().getTime(),
        },
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Gives up the claim if `holder` still has it; someone who took over an expired claim keeps theirs. */
export async function releaseGeneration(
  context: StoreContext,
  owner: Owner,
  clientMessageId: string,
  holder: string,
): Promise<void> {
  try {
    await context.documents.send(
      new UpdateCommand({
        TableName: context.tables.turns,
        Key: clientMessageKeyOf(ownerIdOf(owner), clientMessageId),
        UpdateExpression: 'REMOVE generationHolder, generationUntil',
        ConditionExpression: 'generationHolder = :holder',
        ExpressionAttributeValues: { ':holder': holder },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
}

/**
 * The holder's heartbeat, two conditional updates outside any versioned commit (control state,
 * like `stoppedSeqs`: `version` does not move and no cache is invalidated): the conversation's
 * `answering.until`, only while it names `userSeq` and only forward — once the answer's commit
 * removed the mark, a late renewal cannot bring it back — and, with a `clientMessageId`, the
 * marker's `generationUntil`, only while `holder` still has the claim.
 */
export async function renewGeneration(
  context: StoreContext,
  owner: Owner,
  renewal: GenerationRenewal,
): Promise<boolean> {
  const ownerId = ownerIdForConversation(owner, renewal.conversationId);
  const until = renewal.until.toISOString();
  const marked = updateIfHeld(
    context,
    new UpdateCommand({
      TableName: context.tables.conversations,
      Key: { ownerId, conversationId: renewal.conversationId },
      UpdateExpression: 'SET #answering.#until = :until',
      ConditionExpression: '#answering.#seq = :seq AND #answering.#until < :until',
      ExpressionAttributeNames: { '#answering': 'answering', '#seq': 'seq', '#until': 'until' },
      ExpressionAttributeValues: { ':seq': renewal.userSeq, ':until': until },
    }),
  );
  if (renewal.clientMessageId === undefined) return marked;
  const [claimed] = await Promise.all([
    updateIfHeld(
      context,
      new UpdateCommand({
        TableName: context.tables.turns,
        Key: clientMessageKeyOf(ownerId, renewal.clientMessageId),
        UpdateExpression: 'SET generationUntil = :until',
        ConditionExpression: 'generationHolder = :holder',
        ExpressionAttributeValues: {
          ':holder': renewal.holder,
          ':until': renewal.until.getTime(),
        },
      }),
    ),
    marked,
  ]);
  return claimed;
}

/** Sends a conditional update; false when its condition failed. */
async function updateIfHeld(context: StoreContext, command: UpdateCommand): Promise<boolean> {
  try {
    await context.documents.send(command);
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}
