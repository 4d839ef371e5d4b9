import { BatchWriteCommand, DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { Owner } from '../../chat/ports.js';
import {
  clientMessageKeyOf,
  conversationKeyOf,
  ownerIdForConversation,
} from './conversation-keys.js';
import { queryAllTurns } from './query-all-turns.js';
import { sendToExistingConversation } from './send-to-existing-conversation.js';
import { cacheKeyOf, type StoreContext } from './store-context.js';

const batchSize = 25; // BatchWriteItem's maximum
const maxUnprocessedRounds = 8;

/**
 * Deletes the conversation row first — from that moment every read and every pending append sees
 * not-found (an append's version condition fails on a missing row) — then its turns and
 * idempotency markers in batches. A crash in between leaves only unreachable rows, which TTL removes.
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

async function deleteBatch(context: StoreContext, keys: Record<string, unknown>[]) {
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
