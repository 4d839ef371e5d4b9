import {
  BatchWriteCommand,
  type BatchWriteCommandOutput,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { KnowledgeDocuments } from '../../knowledge/ports.js';
import { ticketDocumentNames } from '../../knowledge/ticket-document.js';
import type { SyncRunStatus } from '../../ticket-sync/cursor-store.js';
import { parseSyncCursor } from '../../ticket-sync/sync-cursor.js';
import { type LeasedCursorStore, LeaseLostError } from '../../ticket-sync/sync-status.js';
import type { TicketDocumentStore } from '../../ticket-sync/ticket-document-store.js';
import {
  defaultBatchBackoff,
  readTicketSyncStatuses,
  STATUS_ITEM,
  type TicketSyncTableContext,
} from './ticket-sync-status.js';

/**
 * The deployed ticket sync's state in the TicketSync table (`ticketSyncTable`), one partition
 * per source (`source` = the `ticketSync` entry's id, which its function's IAM policy names):
 *
 * - `cursor`: the cursor (`SyncCursor` JSON, with the `sourceKey` it belongs to) and the lease
 *   (`leaseHolder`, `leaseUntil` in epoch ms). Taking the lease and saving the cursor are
 *   conditional writes on this one item: of two overlapping runs only the holder saves, and a
 *   run whose lease another took fails its next save ({@link LeaseLostError}).
 * - `status`: the last run's status (`DeployedSyncStatus`), for the insights page and
 *   `npm run import -- --status --target aws`.
 * - `ticket#<issue id>`: the content hash of each ticket written to the bucket, so an unchanged
 *   ticket is not written again and a reconciliation knows what it holds without listing S3.
 */

const CURSOR_ITEM = 'cursor';
const TICKET_ITEM_PREFIX = 'ticket#';
/** DynamoDB's limit per BatchWriteItem. */
const BATCH_WRITE_ITEMS = 25;
/** Unprocessed items are retried this many times before the call fails. */
const MAX_BATCH_ATTEMPTS = 8;
/** Documents written or removed at once. */
const PARALLEL_WRITES = 8;

/**
 * The cursor store of one source for one run (`holder`: the Lambda request id).
 *
 * @example
 * const cursors = createTicketSyncCursorStore(table, { sourceId: 'servicenow', holder: context.awsRequestId });
 */
export function createTicketSyncCursorStore(
  context: TicketSyncTableContext,
  run: { readonly sourceId: string; readonly holder: string },
): LeasedCursorStore {
  const { documents, tableName: TableName } = context;
  const Key = { source: run.sourceId, item: CURSOR_ITEM };
  return {
    async claim(now, until) {
      try {
        await documents.send(
          new UpdateCommand({
            TableName,
            Key,
            UpdateExpression: 'SET leaseHolder = :holder, leaseUntil = :until',
            ConditionExpression:
              'attribute_not_exists(leaseUntil) OR leaseUntil < :now OR leaseHolder = :holder',
            ExpressionAttributeValues: {
              ':holder': run.holder,
              ':until': until.getTime(),
              ':now': now.getTime(),
            },
          }),
        );
        return 'claimed';
      } catch (error) {
        if ((error as Error).name === 'ConditionalCheckFailedException') return 'held';
        throw error;
      }
    },

    async release() {
      try {
        await documents.send(
          new UpdateCommand({
            TableName,
            Key,
            UpdateExpression: 'REMOVE leaseHolder, leaseUntil',
            ConditionExpression: 'leaseHolder = :holder',
            ExpressionAttributeValues: { ':holder': run.holder },
          }),
        );
      } catch (error) {
        // Taken by another run after this one's lease ran out: it is theirs to release.
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
      }
    },

    async load(sourceKey) {
      const { Item } = await documents.send(
        new GetCommand({ TableName, Key, ConsistentRead: true }),
      );
      // Another system or URL under the same id (the entry was edited): start over.
      if (typeof Item?.cursor !== 'string' || Item.sourceKey !== sourceKey) return undefined;
      try {
        return parseSyncCursor(JSON.parse(Item.cursor));
      } catch (error) {
        throw new Error(`TicketSync ${run.sourceId}: ${(error as Error).message}`);
      }
    },

    async save(sourceKey, cursor) {
      try {
        await documents.send(
          new UpdateCommand({
            TableName,
            Key,
            UpdateExpression: 'SET #cursor = :cursor, sourceKey = :sourceKey',
            ConditionExpression: 'leaseHolder = :holder',
            ExpressionAttributeNames: { '#cursor': 'cursor' },
            ExpressionAttributeValues: {
              ':cursor': JSON.stringify(cursor),
              ':sourceKey': sourceKey,
              ':holder': run.holder,
            },
          }),
        );
      } catch (error) {
        if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
        throw new LeaseLostError(
          `${run.sourceId}: another run took the sync's lease; this run stops without moving the cursor`,
        );
      }
    },

    async recordRun(status: SyncRunStatus) {
      await documents.send(
        new PutCommand({ TableName, Item: { source: run.sourceId, item: STATUS_ITEM, status } }),
      );
    },

    async status() {
      const statuses = await readTicketSyncStatuses(context, [run.sourceId]);
      const status = statuses.get(run.sourceId);
      return status ? [status] : [];
    },
  };
}

/**
 * The source's documents in the Knowledge Base's bucket (`knowledgeBase`: its folder,
 * `tickets/imported/<id>/`) with their content hashes in the table. A page is applied as: the
 * documents written (sidecar first) and removed, then their hashes recorded — a run killed in
 * between writes the same documents again next time, never skips one. Each source has a folder
 * of its own, so no ticket id there is taken by another writer.
 */
export function createKnowledgeBaseTicketStore(
  context: TicketSyncTableContext,
  options: {
    readonly sourceId: string;
    readonly knowledgeBase: Pick<KnowledgeDocuments, 'write' | 'remove'>;
  },
): TicketDocumentStore {
  const { documents, tableName: TableName } = context;
  const { sourceId, knowledgeBase } = options;
  return {
    async load() {
      const hashes = new Map<string, string>();
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await documents.send(
          new QueryCommand({
            TableName,
            KeyConditionExpression: '#source = :source AND begins_with(#item, :prefix)',
            ExpressionAttributeNames: { '#source': 'source', '#item': 'item' },
            ExpressionAttributeValues: { ':source': sourceId, ':prefix': TICKET_ITEM_PREFIX },
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? []) {
          hashes.set(String(item.item).slice(TICKET_ITEM_PREFIX.length), String(item.hash));
        }
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return { hashes, isTakenByAnother: () => false };
    },

    async apply(changes) {
      await inParallel(changes.written, (write) =>
        knowledgeBase.write({
          documentName: write.documentName,
          sidecarName: write.sidecarName,
          document: write.document,
          sidecar: write.sidecar,
        }),
      );
      await inParallel(changes.removed, (id) => knowledgeBase.remove(ticketDocumentNames(id)));
      await batchWrite(context, [
        ...changes.written.map((write) => ({
          PutRequest: {
            Item: {
              source: sourceId,
              item: `${TICKET_ITEM_PREFIX}${write.issueId}`,
              hash: write.hash,
            },
          },
        })),
        ...changes.removed.map((id) => ({
          DeleteRequest: { Key: { source: sourceId, item: `${TICKET_ITEM_PREFIX}${id}` } },
        })),
      ]);
    },
  };
}

async function batchWrite(
  context: TicketSyncTableContext,
  requests: Record<string, unknown>[],
): Promise<void> {
  const backoff = context.backoff ?? defaultBatchBackoff;
  for (let start = 0; start < requests.length; start += BATCH_WRITE_ITEMS) {
    let pending: Record<string, unknown>[] | undefined = requests.slice(
      start,
      start + BATCH_WRITE_ITEMS,
    );
    for (let attempt = 1; pending && pending.length > 0; attempt++) {
      if (attempt > MAX_BATCH_ATTEMPTS) throw new Error('TicketSync: writes kept being throttled');
      if (attempt > 1) await backoff(attempt - 1);
      const result: BatchWriteCommandOutput = await context.documents.send(
        new BatchWriteCommand({ RequestItems: { [context.tableName]: pending } }),
      );
      pending = result.UnprocessedItems?.[context.tableName] as
        | Record<string, unknown>[]
        | undefined;
    }
  }
}

async function inParallel<Item>(
  items: readonly Item[],
  work: (item: Item) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) {
      await work(items[index] as Item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_WRITES, items.length) }, worker));
}
