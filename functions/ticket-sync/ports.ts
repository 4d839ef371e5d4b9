import type { TicketDocumentFiles } from '../knowledge/ticket-document.js';

/**
 * The deployed ticket sync's ports (ADR 0032): the ticket system, the rendering of one page of
 * its records into ticket documents, and the sync's own state. The run (`run-ticket-sync.ts`)
 * uses them; the function's handler wires the adapters (the vendor sources, the DynamoDB state
 * store, the Knowledge Base's S3 documents), tests pass in-memory ones.
 */

/** What every page a source pulls carries, whatever else it holds. */
export interface PulledPage {
  /** Where the next pull starts once this page's documents are written (serialised). */
  readonly cursor: string;
  /** The newest change time (ISO 8601) among the page's records, when the page has any. */
  readonly newestChange?: string;
}

/** A ticket system's API, as far as the sync needs it. */
export interface TicketSource<Page extends PulledPage> {
  /**
   * The records changed since `cursor` (absent: from the beginning), a page at a time, oldest
   * change first; each page's `cursor` resumes after it.
   */
  pullChanged(cursor: string | undefined, options: PullOptions): AsyncIterable<Page>;
  /** Every ticket id the system still has (for reconciliation), a batch at a time. */
  listIds(options: PullOptions): AsyncIterable<readonly string[]>;
}

export interface PullOptions {
  /** Aborted when the run must stop (Lambda's time limit is near). */
  readonly signal: AbortSignal;
}

/** One page of records as ticket documents: what to write, what to remove, what was skipped. */
export interface SyncedPage {
  /** Resolved records with a resolution, scrubbed and rendered, with their content hash. */
  readonly tickets: readonly RenderedTicket[];
  /** Ids of records that must not be knowledge (reopened, merged, deleted). */
  readonly removedIds: readonly string[];
  /** Records that became no ticket, per reason (`notResolved`, `malformed`, …). */
  readonly skipped: Readonly<Record<string, number>>;
  /** Placeholders the scrub put in, per kind of personal data (counts only). */
  readonly scrubbed: Readonly<Record<string, number>>;
}

export interface RenderedTicket {
  readonly issueId: string;
  readonly files: TicketDocumentFiles;
  /** SHA-256 of the document and its sidecar: an unchanged ticket is not written again. */
  readonly hash: string;
}

/** The source refused the credentials (401/403): nothing is written, the run alarms. */
export class SourceAuthError extends Error {
  override readonly name = 'SourceAuthError';
}

/** The run no longer holds its source's lease: another run took over; this one stops. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/**
 * A source's sync state: its cursor under a lease (two overlapping runs never both advance it),
 * the content hash of every ticket it wrote, and the status the insights page and
 * `npm run import -- --status --target aws` show.
 */
export interface TicketSyncStore {
  /**
   * Takes the source's lease until `until` unless another holder's lease runs past `now`;
   * `held` when it does. Returns the cursor to resume from.
   */
  claim(lease: LeaseRequest): Promise<{ readonly cursor: string | undefined } | 'held'>;
  /** Moves the cursor; throws {@link LeaseLostError} when `holder` no longer holds the lease. */
  advance(lease: LeaseHolder, cursor: string): Promise<void>;
  /** Gives the lease up (no-op when another holder took it). */
  release(lease: LeaseHolder): Promise<void>;
  /** The stored hash of each of `issueIds` that was written before. */
  ticketHashes(sourceId: string, issueIds: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /** Records written tickets' hashes and forgets removed ones. */
  recordTickets(
    sourceId: string,
    change: {
      readonly written: ReadonlyMap<string, string>;
      readonly removed: readonly string[];
    },
  ): Promise<void>;
  /** Every ticket id written for the source, a batch at a time. */
  syncedIds(sourceId: string): AsyncIterable<readonly string[]>;
  readStatus(sourceIds: readonly string[]): Promise<ReadonlyMap<string, SyncStatus>>;
  writeStatus(sourceId: string, status: SyncStatus): Promise<void>;
}

export interface LeaseHolder {
  readonly sourceId: string;
  /** The run's own id (the Lambda request id). */
  readonly holder: string;
}

export interface LeaseRequest extends LeaseHolder {
  readonly now: Date;
  /** Past the run's time limit, so a run that dies keeps nobody waiting longer than that. */
  readonly until: Date;
}

/** What a source's last runs left: the page and the status command read it. */
export interface SyncStatus {
  /** The last run's end (ISO 8601). */
  readonly lastRunAt: string;
  readonly lastOutcome: SyncOutcome | 'failed';
  /** The last failure's message (names the source and secret, never ticket text). */
  readonly lastError?: string;
  /** The last run that ended without an error. */
  readonly lastSuccessAt?: string;
  /**
   * Every change made before this instant is in the Knowledge Base's bucket: the start of the
   * last run that reached the end of the changes, or the newest change a later run wrote.
   */
  readonly freshAsOf?: string;
  /** The newest change time any run has seen. */
  readonly newestChangeSeen?: string;
  /** The last run's counts. */
  readonly lastRun?: SyncCounts;
}

export type SyncOutcome =
  /** Reached the end of the changes (or finished the reconciliation). */
  | 'done'
  /** Stopped before the time limit; the next run resumes at the cursor. */
  | 'stopped_for_time'
  /** Another run holds the lease. */
  | 'busy';

export interface SyncCounts {
  readonly pages: number;
  readonly added: number;
  readonly changed: number;
  readonly unchanged: number;
  readonly removed: number;
  readonly skipped: Readonly<Record<string, number>>;
  readonly scrubbed: Readonly<Record<string, number>>;
}
