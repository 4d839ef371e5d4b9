import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SyncBacklog } from '../../knowledge/ports.js';
import type { TurnsTableContext } from './counters.js';
import { syncBacklogKey } from './table-definitions.js';

/**
 * The owed-sync mark (`SyncBacklog`) as one item of the Turns table (`syncBacklogKey`): set by a
 * publish whose sync could not start, read and cleared by the sync catch-up. Each mark adds one
 * to `marks`, and the clear is conditional on the count it read, so a publish that marks it
 * again meanwhile is never lost — whatever the clocks of the two functions say.
 */
export function createSyncBacklog(context: TurnsTableContext): SyncBacklog {
  const item = { TableName: context.tables.turns, Key: syncBacklogKey };
  return {
    async markPending(at) {
      await context.documents.send(
        new UpdateCommand({
          ...item,
          UpdateExpression: 'ADD marks :one SET pendingSince = if_not_exists(pendingSince, :at)',
          ExpressionAttributeValues: { ':one': 1, ':at': at.toISOString() },
        }),
      );
    },
    async read() {
      const { Item } = await context.documents.send(
        new GetCommand({ ...item, ConsistentRead: true }),
      );
      if (Item === undefined) return undefined;
      return { pendingSince: String(Item.pendingSince), marks: Number(Item.marks) };
    },
    async clear(seen) {
      try {
        await context.documents.send(
          new DeleteCommand({
            ...item,
            ConditionExpression: 'marks = :seen',
            ExpressionAttributeValues: { ':seen': seen.marks },
          }),
        );
      } catch (error) {
        // Marked again after it was read (or cleared by an overlapping run): the next run
        // starts the sync that later mark is owed.
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      }
    },
  };
}
