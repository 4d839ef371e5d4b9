import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  BatchWriteCommand,
  type BatchWriteCommandOutput,
  type DynamoDBDocumentClient,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { LeaseLostError, type SyncStatus, type TicketSyncStore } from '../../ticket-sync/ports.js';

/**
 * The ticket sync's state (`TicketSyncStore`) in the TicketSync table (`ticketSyncTable`), one
 * partition per source:
 *
 * - `cursor`: the cursor, and the lease (`leaseHolder`, `leaseUntil` in epoch ms). Taking the
 *   lease and moving the cursor are conditional writes on this one item, so of two overlapping
 *   runs only the holder advances it, and a run whose lease another took fails its next advance.
 * - `status`: the last runs' status (a map), for the insights page and the status command.
 * - `ticket#<issue id>`: the content hash of each ticket written, so an unchanged ticket is not
 *   written again and a reconciliation knows what it holds without listing the bucket.
 */

export interface TicketSyncStoreContext {
  readonly documents: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Before a retry of unprocessed batch items. @default 50 ms × attempt */
  readonly backoff?: (attempt: number) => Promise<void>;
}

const CURSOR_ITEM = 'cursor';
const STATUS_ITEM = 'status';
const TICKET_ITEM_PREFIX = 'ticket#';
/** DynamoDB's limits per BatchGetItem and BatchWriteItem. */
const BATCH_GET_KEYS = 100;
const BATCH_WRITE_ITEMS = 25;
/** Unprocessed items are retried this many times before the call fails. */
const MAX_BATCH_ATTEMPTS = 8;

export function createTicketSyncStore(context: TicketSyncStoreContext): TicketSyncStore {
  const { documents, tableName: TableName } = context;
  const backoff =
    context.backoff ??
    ((attempt: number) => new Promise<void>((resolve) => setTimeout(resolve, 50 * attempt)));
  const cursorKey = (source: string) => ({ source, item: CURSOR_ITEM });

  async function batchGet(keys: Record<string, string>[]): Promise<Record<string, unknown>[]> {
    const items: Record<string, unknown>[] = [];
    for (let start = 0; start < keys.length; start += BATCH_GET_KEYS) {
      let pending: Record<string, unknown>[] | undefined = keys.slice(
        start,
        start + BATCH_GET_KEYS,
      );
      for (let attempt = 1; pending && pending.length > 0; attempt++) {
        if (attempt > MAX_BATCH_ATTEMPTS)
          throw new Error('TicketSync: batch read kept being throttled');
        if (attempt > 1) await backoff(attempt - 1);
        const result: BatchGetCommandOutput = await documents.send(
          new BatchGetCommand({
            RequestItems: { [TableName]: { Keys: pending, ConsistentRead: true } },
          }),
        );
        items.push(...(result.Responses?.[TableName] ?? []));
        pending = result.UnprocessedKeys?.[TableName]?.Keys;
      }
    }
    return items;
  }

  async function batchWrite(requests: Record<string, unknown>[]): Promise<void> {
    for (let start = 0; start < requests.length; start += BATCH_WRITE_ITEMS) {
      let pending: Record<string, unknown>[] | undefined = requests.slice(
        start,
        start + BATCH_WRITE_ITEMS,
      );
      for (let attempt = 1; pending && pending.length > 0; attempt++) {
        if (attempt > MAX_BATCH_ATTEMPTS)
          throw new Error('TicketSync: batch write kept being throttled');
        if (attempt > 1) await backoff(attempt - 1);
        const result: BatchWriteCommandOutput = await documents.send(
          new BatchWriteCommand({ RequestItems: { [TableName]: pending } }),
        );
        pending = result.UnprocessedItems?.[TableName] as Record<string, unknown>[] | undefined;
      }
    }
  }

  return {
    async claim({ sourceId, holder, now, until }) {
      try {
        const { Attributes } = await documents.send(
          new UpdateCommand({
            TableName,
            Key: cursorKey(sourceId),
            UpdateExpression: 'SET leaseHolder = :holder, leaseUntil = :until',
            ConditionExpression:
              'attribute_not_exists(leaseUntil) OR leaseUntil < :now OR leaseHolder = :holder',
            ExpressionAttributeValues: {
              ':holder': holder,
              ':until': until.getTime(),
              ':now': now.getTime(),
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        const cursor = Attributes?.cursor;
        return { cursor: typeof cursor === 'string' ? cursor : undefined };
      } catch (error) {
        if ((error as Error).name === 'ConditionalCheckFailedException') return 'held';
        throw error;
      }
    },

    async advance({ sourceId, holder }, cursor) {
      try {
        await documents.send(
          new UpdateCommand({
            TableName,
            Key: cursorKey(sourceId),
            UpdateExpression: 'SET #cursor = :cursor',
            ConditionExpression: 'leaseHolder = :holder',
            ExpressionAttributeNames: { '#cursor': 'cursor' },
            ExpressionAttributeValues: { ':cursor': cursor, ':holder': holder },
          }),
        );
      } catch (error) {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
        throw new LeaseLostError(
          `${sourceId}: another run took the sync's lease; this run stops without moving the cursor`,
        );
      }
    },

    async release({ sourceId, holder }) {
      try {
        await documents.send(
          new UpdateCommand({
            TableName,
            Key: cursorKey(sourceId),
            UpdateExpression: 'REMOVE leaseHolder, leaseUntil',
            ConditionExpression: 'leaseHolder = :holder',
            ExpressionAttributeValues: { ':holder': holder },
          }),
        );
      } catch (error) {
        // Taken by another run after this one's lease ran out: it is theirs to release.
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      }
    },

    async ticketHashes(sourceId, issueIds) {
      const keys = [...new Set(issueIds)].map((id) => ({
        source: sourceId,
        item: `${TICKET_ITEM_PREFIX}${id}`,
      }));
      const hashes = new Map<string, string>();
      for (const item of await batchGet(keys)) {
        hashes.set(String(item.item).slice(TICKET_ITEM_PREFIX.length), String(item.hash));
      }
      return hashes;
    },

    async recordTickets(sourceId, { written, removed }) {
      await batchWrite([
        ...[...written].map(([id, hash]) => ({
          PutRequest: { Item: { source: sourceId, item: `${TICKET_ITEM_PREFIX}${id}`, hash } },
        })),
        ...removed.map((id) => ({
          DeleteRequest: { Key: { source: sourceId, item: `${TICKET_ITEM_PREFIX}${id}` } },
        })),
      ]);
    },

    async *syncedIds(sourceId) {
      let exclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await documents.send(
          new QueryCommand({
            TableName,
            KeyConditionExpression: '#source = :source AND begins_with(#item, :prefix)',
            ExpressionAttributeNames: { '#source': 'source', '#item': 'item' },
            ExpressionAttributeValues: { ':source': sourceId, ':prefix': TICKET_ITEM_PREFIX },
            ProjectionExpression: '#item',
            ExclusiveStartKey: exclusiveStartKey,
          }),
        );
        const ids = (page.Items ?? []).map((item) =>
          String(item.item).slice(TICKET_ITEM_PREFIX.length),
        );
        if (ids.length > 0) yield ids;
        exclusiveStartKey = page.LastEvaluatedKey;
      } while (exclusiveStartKey);
    },

    async readStatus(sourceIds) {
      const items = await batchGet(
        [...new Set(sourceIds)].map((source) => ({ source, item: STATUS_ITEM })),
      );
      return new Map(items.map((item) => [String(item.source), item.status as SyncStatus]));
    },

    async writeStatus(sourceId, status) {
      await documents.send(
        new PutCommand({
          TableName,
          Item: { source: sourceId, item: STATUS_ITEM, status },
        }),
      );
    },
  };
}
