import type { SkipReason } from '../ticket-import/imported-ticket.js';
import type { SyncCursor } from './sync-cursor.js';
import type { SyncSystem } from './ticket-source.js';

/**
 * Where each source's cursor and last run are kept: a dot-file beside the `--out` folder
 * (FileCursorStore, the command line), the stack's cursor table (deployed; branch sync-stack).
 * A source is named by its key (`sourceKeyOf`): system and URL, and the tables it reads.
 */
export interface CursorStore {
  load(sourceKey: string): Promise<SyncCursor | undefined>;
  /** Saved only after the page's documents are written. */
  save(sourceKey: string, cursor: SyncCursor): Promise<void>;
  /** The outcome of a run, for `--status` and the metrics. */
  recordRun(status: SyncRunStatus): Promise<void>;
  status(): Promise<readonly SyncRunStatus[]>;
}

export interface SyncRunStatus {
  readonly sourceKey: string;
  readonly system: SyncSystem;
  /** When the run ended, ISO 8601. */
  readonly endedAt: string;
  readonly outcome: 'complete' | 'stopped' | 'failed';
  /** Why a run did not complete (no personal data: a status and the source's name). */
  readonly error?: string;
  /** The last run that completed. */
  readonly lastSuccessAt?: string;
  readonly counts: SyncCounts;
  /** The newest change seen (the system's clock); the lag is now minus it. */
  readonly newestChange?: string;
}

export interface SyncCounts {
  readonly records: number;
  readonly added: number;
  readonly changed: number;
  readonly unchanged: number;
  readonly removed: number;
  readonly skipped: Readonly<Record<SkipReason | 'idTaken', number>>;
  /** Placeholders put in, per kind of personal data. */
  readonly scrubbed: Readonly<Record<string, number>>;
}

/** `servicenow https://acme.service-now.com incident,sc_req_item`: one cursor per source. */
export function sourceKeyOf(
  system: SyncSystem,
  url: string,
  scope: readonly string[] = [],
): string {
  const origin = new URL(url).origin;
  return [system, origin, ...(scope.length > 0 ? [scope.join(',')] : [])].join(' ');
}
