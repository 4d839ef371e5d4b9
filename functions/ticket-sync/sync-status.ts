import type { CursorStore, SyncRunStatus } from './cursor-store.js';

/**
 * The deployed sync's state as its stores and readers see it (ADR 0032): the lease around a run,
 * the status a run leaves, and the lag read from it. Types and one function only, so the API
 * function reads a status without loading the sync (deployed-sync.ts runs it).
 */

export type SyncMode = 'pull' | 'reconcile';

/** The cursor store of the deployed sync: the CursorStore with a lease around the run. */
export interface LeasedCursorStore extends CursorStore {
  /** Takes the lease until `until`, unless another run holds it past `now`: then `held`. */
  claim(now: Date, until: Date): Promise<'claimed' | 'held'>;
  /** Gives it up (nothing when another run took it meanwhile). */
  release(): Promise<void>;
}

/** A run's status as the deployed store keeps it: the command line's, plus how fresh it is. */
export interface DeployedSyncStatus extends SyncRunStatus {
  readonly mode: SyncMode;
  /**
   * Every change made before this instant is in the bucket: the start of the last pull that
   * reached the end of the changes, or, while a backlog is being worked off, the newest change
   * written. Lag = now − freshAsOf; a quiet system does not lag.
   */
  readonly freshAsOf?: string;
}

/** The run's lease or cursor was taken by another run: it stopped without moving the cursor. */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
}

/**
 * How far a source's knowledge is behind, in seconds (now − `freshAsOf`); undefined before its
 * first run that wrote or caught up.
 */
export function lagSeconds(
  status: Pick<DeployedSyncStatus, 'freshAsOf'> | undefined,
  now: Date,
): number | undefined {
  if (!status?.freshAsOf) return undefined;
  return Math.max(0, Math.round((now.getTime() - Date.parse(status.freshAsOf)) / 1000));
}
