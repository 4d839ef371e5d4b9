import type { SyncCursor } from '../sync-cursor.js';
import { laterOf, windowStartOf } from '../sync-cursor.js';

/**
 * Where a search ordered by last change stands, for ServiceNow and Jira: read the records
 * changed at or after `after`, skipping the first `skip` of them (those of `after`'s instant
 * already read). Each page starts a fresh query at the last change it read rather than keep an
 * offset into the first: a record changed while the run pages moves to the end of the order,
 * and with a plain offset the record behind it would slide into a page already read and be
 * missed. `part` counts the tables (ServiceNow reads several, one after another); `newest` is
 * the newest change this run has read, the next run's `updatedSince` once the run completes.
 */
export interface KeysetPosition {
  readonly part: number;
  /** ISO 8601 UTC, at the system's precision (ServiceNow seconds, Jira minutes). */
  readonly after: string;
  readonly skip: number;
  /** Jira Cloud's `nextPageToken`, when a whole page fell on one instant (Cloud has no offset). */
  readonly pageToken?: string;
  readonly newest?: string;
}

/** Where a run starts or resumes. */
export function startPosition(cursor: SyncCursor): KeysetPosition {
  if (cursor.resume) {
    try {
      const position = JSON.parse(cursor.resume) as KeysetPosition;
      if (typeof position.after === 'string' && typeof position.skip === 'number') return position;
    } catch {
      // not ours: start the window over (what it re-reads is deduplicated)
    }
  }
  return { part: 0, after: windowStartOf(cursor).toISOString(), skip: 0 };
}

/**
 * The position after a page whose records changed at `instants` (ISO, at the system's precision,
 * in the page's order). `full`: the page was as long as asked for (more may follow).
 */
export function positionAfter(
  position: KeysetPosition,
  instants: readonly string[],
  full: boolean,
  nextPageToken?: string,
): KeysetPosition | undefined {
  const newest = newestOf(position.newest, instants);
  if (!full) return undefined;
  const last = instants[instants.length - 1] ?? position.after;
  if (last === position.after) {
    // A whole page on one instant: page within it.
    return {
      part: position.part,
      after: last,
      skip: position.skip + instants.length,
      ...(nextPageToken ? { pageToken: nextPageToken } : {}),
      ...(newest ? { newest } : {}),
    };
  }
  return {
    part: position.part,
    after: last,
    skip: instants.filter((instant) => instant === last).length,
    ...(newest ? { newest } : {}),
  };
}

/** The cursor saved after a page: the run's position, or (`position` undefined) the run done. */
export function cursorAt(
  cursor: SyncCursor,
  position: KeysetPosition | undefined,
  newest: string | undefined,
): SyncCursor {
  const { resume: _resume, ...rest } = cursor;
  if (position) return { ...rest, resume: JSON.stringify(position) };
  const updatedSince = laterOf(cursor.updatedSince, newest);
  return { ...rest, ...(updatedSince ? { updatedSince } : {}) };
}

/** The newest of a run's newest change so far and a page's instants. */
export function newestOf(
  previous: string | undefined,
  instants: readonly string[],
): string | undefined {
  return instants.reduce<string | undefined>((a, b) => laterOf(a, b || undefined), previous);
}
