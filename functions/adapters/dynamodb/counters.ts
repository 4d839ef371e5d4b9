import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DailyBudget, Owner } from '../../chat/ports.js';
import type { IssueNumbers } from '../../knowledge/publish-ticket.js';
import { ownerIdOf } from './conversation-items.js';
import type { StoreContext } from './create-dynamodb-conversation-store.js';

/** What an item of the Turns table beside the turns needs: the client and the table's name. */
export type TurnsTableContext = Pick<StoreContext, 'documents'> & {
  readonly tables: Pick<StoreContext['tables'], 'turns'>;
};

/*
 * Atomic counters kept as items of the Turns table, beside the idempotency markers, under keys
 * that can never look like a conversation key (which ends in a ULID), at seq 0: the daily token
 * budget per owner and the ticket numbers of published knowledge per tenant.
 */

/**
 * The daily token budget: one counter per owner and UTC day (`ownerId#budget#2026-12-01`) whose
 * `tokens` are the tokens committed that day — spent, plus reserved by calls still running
 * (ADR 0012). Two days of TTL: only today's counter matters, and a reservation a crashed function
 * never settled is forgotten with its day.
 */
export function createDailyBudget(context: TurnsTableContext): DailyBudget {
  const keyOf = (owner: Owner, day: string) => ({
    conversationKey: `${ownerIdOf(owner)}#budget#${day}`,
    seq: 0,
  });
  const expiresAt = (day: string) => Math.floor(Date.parse(`${day}T00:00:00Z`) / 1000) + 2 * 86_400;
  return {
    async reserve(owner, day, tokens, limit) {
      try {
        // The check and the reservation are one conditional write: two calls can never both see
        // the room that only one of them leaves. (`tokens` kept its name from when it counted
        // only spent tokens, so a counter written before reservations still counts.)
        await context.documents.send(
          new UpdateCommand({
            TableName: context.tables.turns,
            Key: keyOf(owner, day),
            UpdateExpression: 'ADD tokens :tokens, chats :one SET expiresAt = :expiresAt',
            ConditionExpression: 'attribute_not_exists(tokens) OR tokens < :limit',
            ExpressionAttributeValues: {
              ':tokens': tokens,
              ':one': 1,
              ':limit': limit,
              ':expiresAt': expiresAt(day),
            },
          }),
        );
        return true;
      } catch (error) {
        if ((error as Error).name === 'ConditionalCheckFailedException') return false;
        throw error;
      }
    },
    async adjust(owner, day, tokens) {
      if (tokens === 0) return;
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

/**
 * Ticket numbers for published knowledge: one counter per tenant
 * (`<tenant>#knowledge#issue-number`). No TTL: a number is never handed out twice. A publish
 * that fails after taking a number leaves a gap, which costs nothing.
 */
export function createIssueNumbers(context: TurnsTableContext, firstIssueId: number): IssueNumbers {
  return {
    async next(tenantId) {
      const response = await context.documents.send(
        new UpdateCommand({
          TableName: context.tables.turns,
          Key: { conversationKey: `${tenantId}#knowledge#issue-number`, seq: 0 },
          UpdateExpression: 'ADD issued :one',
          ExpressionAttributeValues: { ':one': 1 },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      const issued = Number(response.Attributes?.issued);
      if (!Number.isSafeInteger(issued) || issued < 1)
        throw new Error(`The issue-number counter returned ${String(response.Attributes?.issued)}`);
      return String(firstIssueId + issued - 1);
    },
  };
}
