import { BatchWriteCommand, DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  ConversationNotFoundError,
  type ConversationSummary,
  KnowledgeAlreadyPublishedError,
  type Owner,
  TurnNotFoundError,
} from '../../chat/ports.js';
import type { AnswerFeedback } from '../../contract/conversations.js';
import type { PublishedKnowledge } from '../../contract/knowledge.js';
import {
  assertTitleFits,
  clientMessageKeyOf,
  conversationKeyOf,
  ownerIdForConversation,
  searchKeyOf,
  toConversationSummary,
} from './conversation-items.js';
import type { StoreContext } from './create-dynamodb-conversation-store.js';
import { queryAllTurns } from './read-conversations.js';
import { advanceCachedConversation, cacheKeyOf } from './turn-cache.js';
import { commitWithVersion, updateConversationAtVersion } from './versioned-commit.js';

/**
 * The changes to a conversation other than appends (`append-turn.ts`): rename and delete from the
 * sidebar, feedback on an answer, and the stop flag a running generation polls.
 */

/** Renames a conversation; bumps `version` (the ETag) but not `updatedAt` (the sidebar order). */
export async function renameConversation(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
  title: string,
): Promise<ConversationSummary> {
  const ownerId = ownerIdForConversation(owner, conversationId);
  assertTitleFits(title);
  return commitWithVersion(context, {
    ownerId,
    conversationId,
    plan(state) {
      if (!state) throw new ConversationNotFoundError();
      const { item, after } = updateConversationAtVersion(context, state, {
        title,
        titleKey: searchKeyOf(title),
      });
      return {
        items: [item],
        committed() {
          const key = cacheKeyOf(ownerId, conversationId);
          advanceCachedConversation(context.cache, key, state.version, after, (turns) => turns);
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
  const ownerId = ownerIdForConversation(owner, conversationId);
  return commitWithVersion(context, {
    ownerId,
    conversationId,
    plan(state) {
      if (!state) throw new ConversationNotFoundError();
      const { item, after } = updateConversationAtVersion(context, state, {});
      const setFeedback = {
        Update: {
          TableName: context.tables.turns,
          Key: { conversationKey: conversationKeyOf(ownerId, conversationId), seq },
          UpdateExpression: 'SET feedback = :feedback',
          ConditionExpression: '#kind = :answer',
          ExpressionAttributeNames: { '#kind': 'kind' },
          ExpressionAttributeValues: { ':feedback': feedback, ':answer': 'answer' },
        },
      };
      return {
        items: [item, setFeedback],
        // The turn's condition is the only other one in this commit.
        otherConditionFailed: () => new TurnNotFoundError(seq),
        committed() {
          advanceCachedConversation(
            context.cache,
            cacheKeyOf(ownerId, conversationId),
            state.version,
            after,
            (turns) => turns.map((turn) => (turn.seq === seq ? { ...turn, feedback } : turn)),
          );
          return toConversationSummary(after);
        },
      };
    },
  });
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
  const ownerId = ownerIdForConversation(owner, conversationId);
  const { inquiryId, ...record } = published;
  return commitWithVersion(context, {
    ownerId,
    conversationId,
    plan(state) {
      if (!state) throw new ConversationNotFoundError();
      const existing = state.knowledge?.[inquiryId];
      if (existing) throw new KnowledgeAlreadyPublishedError(existing.issueId);
      const { item, after } = updateConversationAtVersion(context, state, {
        knowledge: { ...state.knowledge, [inquiryId]: record },
      });
      return {
        items: [item],
        committed() {
          const key = cacheKeyOf(ownerId, conversationId);
          advanceCachedConversation(context.cache, key, state.version, after, (turns) => turns);
          return toConversationSummary(after);
        },
      };
    },
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
 * Records a stop request on the conversation row. Lambda cannot see the browser disconnect, so
 * the generation polls this flag. It is control state, not history: `version` does not move and
 * no cache is invalidated.
 */
export async function requestStop(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
): Promise<void> {
  const ownerId = ownerIdForConversation(owner, conversationId);
  await sendToExistingConversation(
    context,
    new UpdateCommand({
      TableName: context.tables.conversations,
      Key: { ownerId, conversationId },
      UpdateExpression: 'SET stopRequestedAt = :now',
      ConditionExpression: 'attribute_exists(ownerId)',
      ExpressionAttributeValues: { ':now': context.now().toISOString() },
    }),
  );
}

/** True when a stop was requested after `since` (ISO time the generation started). */
export async function isStopRequested(
  context: StoreContext,
  owner: Owner,
  conversationId: string,
  since: string,
): Promise<boolean> {
  const ownerId = ownerIdForConversation(owner, conversationId);
  const { Item } = await context.documents.send(
    new GetCommand({
      TableName: context.tables.conversations,
      Key: { ownerId, conversationId },
      ProjectionExpression: 'stopRequestedAt, conversationId',
      ConsistentRead: true,
    }),
  );
  if (!Item) throw new ConversationNotFoundError();
  const requestedAt = Item.stopRequestedAt as string | undefined;
  return requestedAt !== undefined && Date.parse(requestedAt) > Date.parse(since);
}

/**
 * Sends a write conditioned on `attribute_exists(ownerId)`: a failed condition means the
 * conversation is missing or someone else's, which callers see as not-found. These writes are
 * not versioned: a delete removes the row every pending versioned commit is conditioned on, and
 * a stop request is control state, not history.
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
