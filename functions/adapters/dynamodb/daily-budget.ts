import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DailyBudget, Owner } from '../../chat/ports.js';
import { ownerIdOf } from './conversation-items.js';
import type { StoreContext } from './create-dynamodb-conversation-store.js';

/**
 * The daily token budget as one counter item per owner and UTC day in the Turns table, beside
 * the idempotency markers (`ownerId#budget#2026-12-01`, seq 0: it can never look like a
 * conversation key, which ends in a ULID). Two days of TTL: only today's counter matters.
 */
export function createDailyBudget(
  context: Pick<StoreContext, 'documents' | 'tables'>,
): DailyBudget {
  const keyOf = (owner: Owner, day: string) => ({
    conversationKey: `${ownerIdOf(owner)}#budget#${day}`,
    seq: 0,
  });
  const expiresAt = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + 2 * 86_400;
  return {
    async admit(owner, day, limit) {
      try {
        // Conditional on the tokens spent so far: the check and the count of admitted chats are
        // one atomic write, so the counter is the only source of truth.
        await context.documents.send(
          new UpdateCommand({
            TableName: context.tables.turns,
            Key: keyOf(owner, day),
            UpdateExpression: 'ADD chats :one SET expiresAt = :expiresAt',
            ConditionExpression: 'attribute_not_exists(tokens) OR tokens < :limit',
            ExpressionAttributeValues: { ':one': 1, ':limit': limit, ':expiresAt': expiresAt(day) },
          }),
        );
        return true;
      } catch (error) {
        if ((error as Error).name === 'ConditionalCheckFailedException') return false;
        throw error;
      }
    },
    async spend(owner, day, tokens) {
      if (tokens <= 0) return;
      await context.documents.send(
        new UpdateCommand({
          TableName: context.tables.turns,
          Key: keyOf(owner, day),
          UpdateExpression: 'ADD tokens :tokens SET expiresAt = :expiresAt',
          ExpressionAttributeValues: { ':tokens': tokens, ':expiresAt': expiresAt(day) },
        }),
      );
    },
  };
}
