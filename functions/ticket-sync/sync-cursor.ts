/**
 * Where a source's sync stands, saved after each page's documents are written (JSON, the same
 * in a dot-file beside `--out` and in the stack's cursor table).
 *
 * A run reads from `updatedSince − overlapSeconds` (or from `resume`, a run that stopped
 * midway): the overlap re-reads the last moments so a clock skew between the system and this
 * side, or a change written in the same second as the last one read, cannot be skipped; what it
 * re-reads is deduplicated by the content hash the document store keeps (an unchanged ticket is
 * not written again).
 */
export interface SyncCursor {
  readonly version: 1;
  /** The newest change written so far (the system's clock, ISO 8601 UTC); absent before the first run. */
  readonly updatedSince?: string;
  readonly overlapSeconds: number;
  /** The source's position inside a run (or Zendesk's export cursor), opaque to all but the source. */
  readonly resume?: string;
}

/** How far back a run re-reads by default: ServiceNow and Jira search by the second or minute. */
export const DEFAULT_OVERLAP_SECONDS = 300;

export function initialCursor(options: {
  readonly since?: string;
  readonly overlapSeconds?: number;
}): SyncCursor {
  return {
    version: 1,
    ...(options.since ? { updatedSince: new Date(options.since).toISOString() } : {}),
    overlapSeconds: options.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS,
  };
}

/** Where a run starts reading when it does not resume: `updatedSince` less the overlap, or the beginning. */
export function windowStartOf(cursor: SyncCursor): Date {
  if (!cursor.updatedSince) return new Date(0);
  return new Date(Date.parse(cursor.updatedSince) - cursor.overlapSeconds * 1000);
}

/** The later of two ISO instants (either may be absent). */
export function laterOf(a: string | undefined, b: string | undefined): string | undefined {
  if (!a) return b;
  if (!b) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

/** A cursor read back from storage, checked (a hand-edited dot-file, another version). */
export function parseSyncCursor(value: unknown): SyncCursor {
  const cursor = value as Partial<SyncCursor> | null;
  if (
    typeof cursor !== 'object' ||
    cursor === null ||
    cursor.version !== 1 ||
    typeof cursor.overlapSeconds !== 'number' ||
    (cursor.updatedSince !== undefined && Number.isNaN(Date.parse(cursor.updatedSince))) ||
    (cursor.resume !== undefined && typeof cursor.resume !== 'string')
  ) {
    throw new Error('not a sync cursor of this version; remove it to start over');
  }
  return cursor as SyncCursor;
}
