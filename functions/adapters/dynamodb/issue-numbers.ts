import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { IssueNumbers } from '../../knowledge/publish-ticket.js';
import type { StoreContext } from './create-dynamodb-conversation-store.js';

/**
 * Ticket numbers for published knowledge: one atomic counter per tenant in the Turns table
 * (`<tenant>#knowledge#issue-number`, seq 0 — beside the budget counters, and like them never a
 * conversation key, which ends in a ULID). No TTL: a number is never handed out twice. A publish
 * that fails after taking a number leaves a gap, which costs nothing.
 */
export function createIssueNumbers(
  context: Pick<StoreContext, 'documents' | 'tables'>,
  firstIssueId: number,
): IssueNumbers {
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
