import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { SourceFreshness } from '../../contract/insights.js';
import type { KnowledgeFreshness } from '../../insights/ports.js';
import { type DeployedSyncStatus, lagSeconds } from '../../ticket-sync/sync-status.js';

/**
 * The ticket sync's status items (`status` of each source's partition of the TicketSync table),
 * read by the insights page and the status command without loading the sync itself; the sync's
 * own store (ticket-sync-store.ts) writes them.
 */

export interface TicketSyncTableContext {
  readonly documents: DynamoDBDocumentClient;
  readonly tableName: string;
  /** Before a retry of unprocessed batch items. @default 50 ms × attempt */
  readonly backoff?: (attempt: number) => Promise<void>;
}

/** The sort key of a source's status item. */
export const STATUS_ITEM = 'status';
/** DynamoDB's limit per BatchGetItem. */
const BATCH_GET_KEYS = 100;
/** Unprocessed keys are retried this many times before the read fails. */
const MAX_BATCH_ATTEMPTS = 8;

export const defaultBatchBackoff = (attempt: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, 50 * attempt));

/**
 * The stored status of each of `sourceIds` that has run (the insights page, the status command).
 */
export async function readTicketSyncStatuses(
  context: TicketSyncTableContext,
  sourceIds: readonly string[],
): Promise<ReadonlyMap<string, DeployedSyncStatus>> {
  const statuses = new Map<string, DeployedSyncStatus>();
  const keys = [...new Set(sourceIds)].map((source) => ({ source, item: STATUS_ITEM }));
  const backoff = context.backoff ?? defaultBatchBackoff;
  for (let start = 0; start < keys.length; start += BATCH_GET_KEYS) {
    let pending: Record<string, unknown>[] | undefined = keys.slice(start, start + BATCH_GET_KEYS);
    for (let attempt = 1; pending && pending.length > 0; attempt++) {
      if (attempt > MAX_BATCH_ATTEMPTS) throw new Error('TicketSync: reads kept being throttled');
      if (attempt > 1) await backoff(attempt - 1);
      const result: BatchGetCommandOutput = await context.documents.send(
        new BatchGetCommand({ RequestItems: { [context.tableName]: { Keys: pending } } }),
      );
      for (const item of result.Responses?.[context.tableName] ?? []) {
        statuses.set(String(item.source), item.status as DeployedSyncStatus);
      }
      pending = result.UnprocessedKeys?.[context.tableName]?.Keys;
    }
  }
  return statuses;
}

/** A `ticketSync` source as the insights page lists it. */
export interface SyncedSourceSummary {
  readonly id: string;
  readonly system: SourceFreshness['system'];
  readonly maxLagMinutes: number;
}

/**
 * The insights page's knowledge freshness: each configured source, with what its last runs
 * stored (a source that never ran is listed without figures).
 */
export function createKnowledgeFreshness(
  context: TicketSyncTableContext,
  sources: readonly SyncedSourceSummary[],
): KnowledgeFreshness {
  return {
    async read(now) {
      const statuses = await readTicketSyncStatuses(
        context,
        sources.map((source) => source.id),
      );
      return sources.map((source): SourceFreshness => {
        const status = statuses.get(source.id);
        const lag = lagSeconds(status, now);
        return {
          id: source.id,
          system: source.system,
          maxLagMinutes: source.maxLagMinutes,
          ...(status?.lastSuccessAt && { lastSuccessAt: status.lastSuccessAt }),
          ...(status && { lastRunAt: status.endedAt, lastOutcome: status.outcome }),
          ...(lag !== undefined && { lagMinutes: Math.floor(lag / 60) }),
        };
      });
    },
  };
}
