import { BatchWriteCommand, DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  ConversationConflictError,
  ConversationNotFoundError,
  TurnNotFoundError,
} from '../../chat/errors.js';
import type {
  ConversationSummary,
  MailDraftChange,
  MailDraftRecorded,
  Owner,
} from '../../chat/ports.js';
import type { AnswerFeedback } from '../../contract/conversations.js';
import type { PublishedKnowledge } from '../../contract/knowledge.js';
import { KnowledgeAlreadyPublishedError } from '../../knowledge/errors.js';
import { MailDraftFullError } from '../../mail-draft/errors.js';
import {
  assertTitleFits,
  type ConversationItem,
  clientMessageKeyOf,
  conversationKeyOf,
  ownerIdForConversation,
  searchKeyOf,
  type TurnItem,
  toConversationSummary,
} from './conversation-items.js';
import { queryAllTurns } from './read-conversations.js';
import type { StoreContext } from './store-context.js';
import { advanceCachedConversation, cacheKeyOf } from './turn-cache.js';
import {
  commitWithVersion,
  itemFromCancellation,
  type TransactItem,
  updateConversationAtVersion,
} from './versioned-commit.js';

/**
 * The changes to a conversation other than appends (`append-turn.ts`): rename and delete from the
 * sidebar, feedback on an answer, the knowledge ticket published from an inquiry, and the stop
 * flag a running generation polls.
 */

/** Renames a conversation; bumps `version` (the ETag) but not `updatedAt` (the sidebar order). */
export async function renameConversation(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
  title: string,
): Promise<ConversationSummary> {
  assertTitleFits(title);
  return changeConversation(context, owner, conversationId, () => ({
    row: { title, titleKey: searchKeyOf(title) },
  }));
}

/** What a change to a conversation (not an append) writes, planned from the row it commits on. */
interface ConversationChange {
  /** Fields of the conversation row to set (`undefined` removes one). */
  readonly row: Parameters<typeof updateConversationAtVersion>[2];
  /** Further items of the same transaction, e.g. a turn's update with its own condition. */
  readonly alsoWrite?: readonly TransactItem[];
  /** What a failed condition of `alsoWrite` means. @default ConversationConflictError */
  readonly otherConditionFailed?: (error: unknown) => Error;
  /** How the cached turns change with it. @default unchanged */
  readonly turns?: (turns: readonly TurnItem[]) => readonly TurnItem[];
}

/**
 * A change to a conversation in a versioned commit (bumps `version`, not `updatedAt`): `plan`
 * reads the row the commit is conditioned on and may refuse by throwing; every container's cached
 * copy advances with it.
 */
function changeConversation(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
  plan: (state: ConversationItem, ownerId: string) => ConversationChange,
): Promise<ConversationSummary> {
  const ownerId = ownerIdForConversation(owner, conversationId);
  return commitWithVersion(context, {
    ownerId,
    conversationId,
    plan(state) {
      if (!state) throw new ConversationNotFoundError();
      const change = plan(state, ownerId);
      const { item, after } = updateConversationAtVersion(context, state, change.row);
      return {
        items: [item, ...(change.alsoWrite ?? [])],
        otherConditionFailed: change.otherConditionFailed,
        committed() {
          const key = cacheKeyOf(ownerId, conversationId);
          const turns = change.turns ?? ((unchanged) => unchanged);
          advanceCachedConversation(context.cache, key, state.version, after, turns);
          return toConversationSummary(after);
        },
      };
    },
  });
}

/**
 * Sets `feedback` on an answer turn — the one attribute of a turn that ever changes after it was
 * appended — in a versioned commit, so the detail's ETag and every container's cached copy move
 * with it. The turn's half is conditioned on the turn being an answer; the route checked that on
 * the conversation it loaded, and turns never change kind, so a failure there means the turn is
 * not one (`TurnNotFoundError`), not a race.
 */
export async function recordFeedback(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
  seq: number,
  feedback: AnswerFeedback,
): Promise<ConversationSummary> {
  return changeConversation(context, owner, conversationId, (_state, ownerId) => ({
    row: {},
    alsoWrite: [
      {
        Update: {
          TableName: context.tables.turns,
          Key: { conversationKey: conversationKeyOf(ownerId, conversationId), seq },
          UpdateExpression: 'SET feedback = :feedback',
          ConditionExpression: '#kind = :answer',
          ExpressionAttributeNames: { '#kind': 'kind' },
          ExpressionAttributeValues: { ':feedback': feedback, ':answer': 'answer' },
        },
      },
    ],
    // The turn's condition is the only other one in this commit.
    otherConditionFailed: () => new TurnNotFoundError(seq),
    turns: (turns) => turns.map((turn) => (turn.seq === seq ? { ...turn, feedback } : turn)),
  }));
}

/** The turn attribute each counted action adds one to. */
const MAIL_DRAFT_COUNTERS = {
  copy: 'mailDraftCopies',
  open_in_mail: 'mailDraftMailOpens',
} as const;

/**
 * Changes an answer's mail draft (ADR 0023) in a versioned commit, as feedback does. A version is
 * appended with `list_append` on the condition that the list still holds the count this attempt
 * numbers it after (and is shorter than `maxVersions`): the number is assigned in the commit, so
 * two concurrent refinements never announce the same one, and the limit holds however many race.
 * A count that moved comes back with the failed condition (the turn as it was) and the append is
 * tried again after the new count. An action adds 1 to its counter. Both are conditioned on the
 * turn being an answer; the turn as it was tells a full draft (`MailDraftFullError`) from no
 * answer turn (`TurnNotFoundError`).
 */
export async function recordMailDraft(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
  seq: number,
  change: MailDraftChange,
): Promise<MailDraftRecorded> {
  if (change.kind === 'action') {
    return commitMailDraftChange(context, owner, conversationId, seq, change, {
      UpdateExpression: 'ADD #counter :one',
      ConditionExpression: '#kind = :answer',
      ExpressionAttributeNames: { '#kind': 'kind', '#counter': MAIL_DRAFT_COUNTERS[change.action] },
      ExpressionAttributeValues: { ':one': 1, ':answer': 'answer' },
    });
  }
  let count = change.versionsSeen;
  for (let attempt = 1; ; attempt++) {
    if (count >= change.maxVersions) throw new MailDraftFullError(change.maxVersions);
    try {
      const summary = await commitMailDraftChange(context, owner, conversationId, seq, change, {
        UpdateExpression: 'SET #versions = list_append(if_not_exists(#versions, :none), :added)',
        ConditionExpression:
          count === 0
            ? '#kind = :answer AND (attribute_not_exists(#versions) OR size(#versions) = :count)'
            : '#kind = :answer AND size(#versions) = :count',
        ExpressionAttributeNames: { '#kind': 'kind', '#versions': 'mailDraftVersions' },
        ExpressionAttributeValues: {
          ':none': [],
          ':added': [change.version],
          ':answer': 'answer',
          ':count': count,
        },
      });
      // The original is 1; the versions stored before this one were `count`.
      return { ...summary, versionNumber: count + 2 };
    } catch (error) {
      if (!(error instanceof VersionCountMoved) || attempt >= context.maxAttempts) {
        throw error instanceof VersionCountMoved ? new ConversationConflictError() : error;
      }
      count = error.count;
    }
  }
}

/** The versions stored were not the count an append was numbered after (another was stored). */
class VersionCountMoved extends Error {
  constructor(readonly count: number) {
    super(`the mail draft has ${count} versions`);
  }
}

function commitMailDraftChange(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
  seq: number,
  change: MailDraftChange,
  turnUpdate: {
    UpdateExpression: string;
    ConditionExpression: string;
    ExpressionAttributeNames: Record<string, string>;
    ExpressionAttributeValues: Record<string, unknown>;
  },
): Promise<ConversationSummary> {
  return changeConversation(context, owner, conversationId, (_state, ownerId) => ({
    row: {},
    alsoWrite: [
      {
        Update: {
          TableName: context.tables.turns,
          Key: { conversationKey: conversationKeyOf(ownerId, conversationId), seq },
          ...turnUpdate,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ],
    otherConditionFailed(error) {
      const turn = itemFromCancellation(error, 1);
      if (turn?.kind !== 'answer') return new TurnNotFoundError(seq);
      if (change.kind !== 'version') return new TurnNotFoundError(seq);
      const stored = Array.isArray(turn.mailDraftVersions) ? turn.mailDraftVersions.length : 0;
      return stored >= change.maxVersions
        ? new MailDraftFullError(change.maxVersions)
        : new VersionCountMoved(stored);
    },
    turns: (turns) =>
      turns.map((turn) => (turn.seq === seq ? withMailDraftChange(turn, change) : turn)),
  }));
}

/** A cached turn as the commit left it. */
function withMailDraftChange(turn: TurnItem, change: MailDraftChange): TurnItem {
  if (change.kind === 'version')
    return { ...turn, mailDraftVersions: [...(turn.mailDraftVersions ?? []), change.version] };
  const counter = MAIL_DRAFT_COUNTERS[change.action];
  return { ...turn, [counter]: (turn[counter] ?? 0) + 1 };
}

/**
 * Adds a published knowledge ticket to the conversation row (`knowledge`, by inquiry) in a
 * versioned commit. Refused with `KnowledgeAlreadyPublishedError` when the row it commits on
 * already names a ticket for that inquiry; the version condition makes the check and the write
 * one atomic step.
 */
export async function recordPublishedKnowledge(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
  published: PublishedKnowledge,
): Promise<ConversationSummary> {
  const { inquiryId, ...record } = published;
  return changeConversation(context, owner, conversationId, (state) => {
    const existing = state.knowledge?.[inquiryId];
    if (existing) throw new KnowledgeAlreadyPublishedError(existing.issueId);
    return { row: { knowledge: { ...state.knowledge, [inquiryId]: record } } };
  });
}

const batchSize = 25; // BatchWriteItem's maximum
const maxUnprocessedRounds = 8;

/**
 * Deletes the conversation row first — from that moment every read and every pending append sees
 * not-found (an append's version condition fails on a missing row) — then its turns and
 * idempotency markers (`deleteConversationTurns`). A crash in between leaves only unreachable
 * rows (see docs/adr/0003-conversation-store-protocol.md, retention).
 */
export async function deleteConversation(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
): Promise<void> {
  const ownerId = ownerIdForConversation(owner, conversationId);
  context.cache.delete(cacheKeyOf(ownerId, conversationId));
  await sendToExistingConversation(
    context,
    new DeleteCommand({
      TableName: context.tables.conversations,
      Key: { ownerId, conversationId },
      ConditionExpression: 'attribute_exists(ownerId)',
    }),
  );
  await deleteConversationTurns(context, ownerId, conversationId);
}

/** What deleting turns needs: the Turns table alone (the retention sweeper may touch nothing else). */
export type TurnsContext = Pick<StoreContext, 'documents' | 'backoff'> & {
  readonly tables: Pick<StoreContext['tables'], 'turns'>;
};

/**
 * Deletes every turn of a conversation whose row is already gone, and the idempotency markers
 * those turns name, in batches of 25. No owner check: callers have one (the row they deleted, or
 * a TTL deletion on the stream). Idempotent — a repeat finds fewer turns and deletes those.
 */
export async function deleteConversationTurns(
  context: TurnsContext,
  ownerId: string,
  conversationId: string,
): Promise<void> {
  const conversationKey = conversationKeyOf(ownerId, conversationId);
  const turns = await queryAllTurns(context, conversationKey, 'seq, clientMessageId');
  const keys = turns.flatMap((turn) => [
    { conversationKey, seq: turn.seq },
    ...(turn.clientMessageId ? [clientMessageKeyOf(ownerId, turn.clientMessageId)] : []),
  ]);
  for (let index = 0; index < keys.length; index += batchSize) {
    await deleteBatch(context, keys.slice(index, index + batchSize));
  }
}

async function deleteBatch(context: TurnsContext, keys: Record<string, unknown>[]) {
  let requests = keys.map((Key) => ({ DeleteRequest: { Key } }));
  for (let round = 1; requests.length > 0; round++) {
    if (round > maxUnprocessedRounds) {
      throw new Error(`DynamoDB left ${requests.length} turn deletions unprocessed`);
    }
    if (round > 1) await context.backoff(round - 1);
    const { UnprocessedItems } = await context.documents.send(
      new BatchWriteCommand({ RequestItems: { [context.tables.turns]: requests } }),
    );
    requests = (UnprocessedItems?.[context.tables.turns] ?? []) as typeof requests;
  }
}

/**
 * Records a stop request for the answer to user turn `userSeq` on the conversation row, in the
 * set `stoppedSeqs`. Lambda cannot see the browser disconnect, so the generation polls it for
 * its own turn; a stop names the answer it stops, so it can never reach another one (a stop is
 * not a time: one for the previous answer that lands late must not stop the next). It is
 * control state, not history: `version` does not move and no cache is invalidated. A turn not
 * stored yet is refused (`TurnNotFoundError`): its seq will belong to a later message.
 */
export async function requestStop(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
  userSeq: number,
): Promise<void> {
  const ownerId = ownerIdForConversation(owner, conversationId);
  try {
    await context.documents.send(
      new UpdateCommand({
        TableName: context.tables.conversations,
        Key: { ownerId, conversationId },
        UpdateExpression: 'ADD stoppedSeqs :seqs',
        ConditionExpression: 'attribute_exists(ownerId) AND turnCount >= :seq',
        ExpressionAttributeValues: { ':seqs': new Set([userSeq]), ':seq': userSeq },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
    // The row comes back when it exists: then only the turn is missing.
    const exists = (error as { Item?: unknown }).Item !== undefined;
    throw exists ? new TurnNotFoundError(userSeq, 'message') : new ConversationNotFoundError();
  }
}

/** True when a stop was requested for the answer to user turn `userSeq`. */
export async function isStopRequested(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
  userSeq: number,
): Promise<boolean> {
  const ownerId = ownerIdForConversation(owner, conversationId);
  const { Item } = await context.documents.send(
    new GetCommand({
      TableName: context.tables.conversations,
      Key: { ownerId, conversationId },
      ProjectionExpression: 'stoppedSeqs, conversationId',
      ConsistentRead: true,
    }),
  );
  if (!Item) throw new ConversationNotFoundError();
  return (Item.stoppedSeqs as Set<number> | undefined)?.has(userSeq) ?? false;
}

/**
 * Sends a write conditioned on `attribute_exists(ownerId)`: a failed condition means the
 * conversation is missing or someone else's, which callers see as not-found. These writes are
 * not versioned: a delete removes the row every pending versioned commit is conditioned on.
 */
async function sendToExistingConversation(
  context: StoreContext,
  command: UpdateCommand | DeleteCommand,
): Promise<void> {
  try {
    await context.documents.send(command);
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') {
      throw new ConversationNotFoundError();
    }
    throw error;
  }
}
