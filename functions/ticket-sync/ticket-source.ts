import { type ImportedRecord, MalformedRecordError } from '../ticket-import/imported-ticket.js';
import type { SyncCursor } from './sync-cursor.js';

/**
 * A ticket system read live (ServiceNow, Jira, Zendesk): what changed since a cursor, page by
 * page, each record already normalized by the same normalizer the file import uses
 * (functions/ticket-import/sources), and, where the system's search never reports a deleted
 * record, the list of every id it still has (reconciliation).
 */

export const SYNC_SYSTEMS = ['servicenow', 'jira', 'zendesk'] as const;
export type SyncSystem = (typeof SYNC_SYSTEMS)[number];

/** One record of a page: normalized, or what made it malformed (never its text). */
export type PulledRecord =
  | {
      /** The system's own id (`sys_id`, the issue key, the ticket id), for reports and dedup. */
      readonly sourceId: string;
      /** When the system last changed it, ISO 8601 UTC. */
      readonly updatedAt: string;
      readonly record: ImportedRecord;
    }
  | { readonly sourceId: string; readonly updatedAt?: string; readonly malformed: string };

/**
 * A record as one page carries it: normalized by `normalize`, or — when the normalizer finds it
 * malformed — its id and the reason (the run reports it and moves past it). A record without a
 * change time sorts first (the epoch). Any other error is the run's, not the record's.
 */
export function pulledRecord(
  sourceId: string,
  updatedAt: string | undefined,
  normalize: () => ImportedRecord,
): PulledRecord {
  try {
    return { sourceId, updatedAt: updatedAt ?? new Date(0).toISOString(), record: normalize() };
  } catch (error) {
    if (!(error instanceof MalformedRecordError)) throw error;
    return { sourceId, ...(updatedAt ? { updatedAt } : {}), malformed: error.message };
  }
}

export interface SourcePage {
  readonly records: readonly PulledRecord[];
  /** Ticket numbers (as the system writes them) the system reports deleted (Zendesk). */
  readonly deletedNumbers?: readonly string[];
  /**
   * Where the next page starts, to be saved once this page's documents are written: a run
   * stopped after it resumes there.
   */
  readonly nextCursor: SyncCursor;
}

export interface TicketSource {
  readonly system: SyncSystem;
  /** Pages of the records changed at or after the cursor's window; ends when none are left. */
  pullChanged(cursor: SyncCursor, signal: AbortSignal): AsyncIterable<SourcePage>;
  /**
   * Every ticket number the system still has, in batches (ServiceNow and Jira: their search
   * never returns a deleted record). Absent where the change feed reports deletions (Zendesk).
   */
  listIds?(signal: AbortSignal): AsyncIterable<readonly string[]>;
}
