import type { CursorStore, SyncCounts } from './cursor-store.js';
import { laterOf, type SyncCursor } from './sync-cursor.js';
import { addCounts, emptyCounts, type SyncSettings, syncPage } from './sync-page.js';
import type { TicketDocumentStore } from './ticket-document-store.js';
import type { TicketSource } from './ticket-source.js';

/**
 * One sync run of one source: pulls the pages changed since its cursor, writes each page's
 * documents, then saves the cursor the page ends at — so a run stopped anywhere (killed, out of
 * time, a failure after its retries) resumes at the first page not written, and a page written
 * twice writes nothing the second time (content hashes). Failures propagate with the cursor
 * where the last written page left it.
 */

export interface SyncRunOptions {
  readonly sourceKey: string;
  readonly source: TicketSource;
  readonly cursors: CursorStore;
  readonly documents: TicketDocumentStore;
  readonly settings: SyncSettings;
  /** The cursor of a source never synced (`initialCursor`, `--since`). */
  readonly firstCursor: SyncCursor;
  /** Stops between pages (Lambda's remaining time, Ctrl-C): the run ends `stopped`, resumable. */
  readonly signal: AbortSignal;
  /** Called after each page is written; the next page waits for it. */
  readonly onPage?: (progress: {
    readonly pages: number;
    readonly counts: SyncCounts;
  }) => void | Promise<void>;
  /** Dry run: nothing written, cursor not saved. */
  readonly dryRun?: boolean;
}

export interface SyncRunReport {
  readonly sourceKey: string;
  readonly outcome: 'complete' | 'stopped';
  readonly pages: number;
  readonly counts: SyncCounts;
  readonly malformed: readonly { readonly sourceId: string; readonly message: string }[];
  readonly newestChange?: string;
  readonly cursor: SyncCursor;
}

const MAX_LISTED_MALFORMED = 100;

export async function runSync(options: SyncRunOptions): Promise<SyncRunReport> {
  const { source, cursors, documents, settings, signal } = options;
  let cursor = (await cursors.load(options.sourceKey)) ?? options.firstCursor;
  const stored = await documents.load();
  const hashes = new Map(stored.hashes);
  const view = { hashes, isTakenByAnother: stored.isTakenByAnother.bind(stored) };
  let counts = emptyCounts();
  const malformed: { sourceId: string; message: string }[] = [];
  let pages = 0;
  let newestChange: string | undefined;
  for await (const page of source.pullChanged(cursor, signal)) {
    const outcome = syncPage(page, view, settings);
    if (!options.dryRun) {
      await documents.apply(outcome.changes);
      await cursors.save(options.sourceKey, page.nextCursor);
    }
    for (const write of outcome.changes.written) hashes.set(write.issueId, write.hash);
    for (const id of outcome.changes.removed) hashes.delete(id);
    cursor = page.nextCursor;
    pages += 1;
    counts = addCounts(counts, outcome.counts);
    newestChange = laterOf(newestChange, outcome.newestChange);
    for (const item of outcome.malformed) {
      if (malformed.length < MAX_LISTED_MALFORMED) malformed.push(item);
    }
    await options.onPage?.({ pages, counts });
    if (signal.aborted) break;
  }
  return {
    sourceKey: options.sourceKey,
    outcome: signal.aborted ? 'stopped' : 'complete',
    pages,
    counts,
    malformed,
    ...(newestChange ? { newestChange } : {}),
    cursor,
  };
}

/**
 * Removes the documents of tickets the system no longer lists (ServiceNow and Jira never report
 * a deletion): the source's `listIds` read whole first, so a listing cut short removes nothing.
 */
export async function reconcileSource(options: {
  readonly source: TicketSource;
  readonly documents: TicketDocumentStore;
  readonly settings: Pick<SyncSettings, 'system'>;
  readonly signal: AbortSignal;
  readonly dryRun?: boolean;
  /** The ticket id of a listed number (`ticketIdOf`). */
  readonly ticketIdOf: (number: string) => string | undefined;
}): Promise<{ readonly listed: number; readonly removed: readonly string[] }> {
  const { source } = options;
  if (!source.listIds) return { listed: 0, removed: [] };
  const listed = new Set<string>();
  for await (const batch of source.listIds(options.signal)) {
    for (const number of batch) {
      const id = options.ticketIdOf(number);
      if (id) listed.add(id);
    }
  }
  if (options.signal.aborted) return { listed: listed.size, removed: [] };
  const stored = await options.documents.load();
  const removed = [...stored.hashes.keys()].filter((id) => !listed.has(id));
  if (!options.dryRun && removed.length > 0)
    await options.documents.apply({ written: [], removed });
  return { listed: listed.size, removed };
}
