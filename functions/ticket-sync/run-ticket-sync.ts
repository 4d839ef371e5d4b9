import type { KnowledgeDocuments, SyncBacklog } from '../knowledge/ports.js';
import { ticketDocumentNames } from '../knowledge/ticket-document.js';
import {
  LeaseLostError,
  type PulledPage,
  type SyncCounts,
  type SyncedPage,
  type SyncOutcome,
  type SyncStatus,
  type TicketSource,
  type TicketSyncStore,
} from './ports.js';

/**
 * One run of a source's deployed sync (ADR 0032), pull or reconciliation. A pull takes the
 * source's lease, then page by page: renders the page, writes the tickets whose content hash
 * changed and removes the reopened or merged ones, records the hashes, and only then advances
 * the cursor — so a run that dies between two steps repeats a page, never skips one. It stops
 * while `stopMarginMs` remain of the function's time and the next run resumes at the cursor.
 * Whatever it wrote, it starts one ingestion job for (or marks the sync owed when one is
 * running; the sync catch-up starts it, ADR 0011).
 */

export type SyncMode = 'pull' | 'reconcile';

export interface TicketSyncRun<Page extends PulledPage> {
  readonly sourceId: string;
  readonly mode: SyncMode;
  /** This run's id, the lease's holder (the Lambda request id). */
  readonly holder: string;
  readonly source: TicketSource<Page>;
  /** The pure page step: a page of records as ticket documents. */
  readonly renderPage: (page: Page) => SyncedPage;
  readonly store: TicketSyncStore;
  /** The Knowledge Base's documents under this source's folder. */
  readonly documents: Pick<KnowledgeDocuments, 'write' | 'remove' | 'startSync'>;
  readonly syncBacklog: Pick<SyncBacklog, 'markPending'>;
  readonly now: () => Date;
  /** Milliseconds left before the function's time limit. */
  readonly remainingMs: () => number;
  /** Stop taking pages when fewer than this remain: a page's fetch and writes fit in it. */
  readonly stopMarginMs: number;
  /** Documents written at once. */
  readonly parallelWrites: number;
}

export interface TicketSyncResult extends SyncCounts {
  readonly outcome: SyncOutcome;
  readonly mode: SyncMode;
  /** What the run did about the Knowledge Base's sync. */
  readonly ingestion: 'started' | 'owed' | 'none';
  /** The status stored after the run (absent when another run held the lease). */
  readonly status?: SyncStatus;
}

/** Runs one pull or reconciliation; rethrows a failure after storing it in the status. */
export async function runTicketSync<Page extends PulledPage>(
  run: TicketSyncRun<Page>,
): Promise<TicketSyncResult> {
  const startedAt = run.now();
  const lease = { sourceId: run.sourceId, holder: run.holder };
  const claimed = await run.store.claim({
    ...lease,
    now: startedAt,
    until: new Date(startedAt.getTime() + run.remainingMs() + LEASE_SLACK_MS),
  });
  if (claimed === 'held') {
    return { outcome: 'busy', mode: run.mode, ingestion: 'none', ...emptyCounts() };
  }
  const counts = new RunCounts();
  const stop = new AbortController();
  // A fetch that hangs is cut when the margin is half gone; the run then ends as stopped.
  const deadline = setTimeout(
    () => stop.abort(new Error('the time limit is near')),
    Math.max(0, run.remainingMs() - run.stopMarginMs / 2),
  );
  let outcome: SyncOutcome = 'done';
  let newestChange: string | undefined;
  let failure: unknown;
  try {
    const progress =
      run.mode === 'pull'
        ? await pullChanges(run, claimed.cursor, counts, stop.signal)
        : await reconcile(run, counts, stop.signal);
    outcome = progress.outcome;
    newestChange = progress.newestChange;
  } catch (error) {
    // A fetch cut by the deadline is a stop, not a failure: the cursor is where the last
    // written page left it.
    if (stop.signal.aborted && !(error instanceof LeaseLostError)) outcome = 'stopped_for_time';
    else failure = error;
  } finally {
    clearTimeout(deadline);
  }

  // Whatever was written before a failure is in the bucket: it is owed its sync either way.
  let ingestion: TicketSyncResult['ingestion'] = 'none';
  if (counts.added + counts.changed + counts.removed > 0) {
    ingestion = (await run.documents.startSync()) === 'started' ? 'started' : 'owed';
    if (ingestion === 'owed') await run.syncBacklog.markPending(run.now());
  }
  const status = await storeStatus(run, startedAt, outcome, newestChange, counts, failure);
  await run.store.release(lease);
  if (failure !== undefined) throw failure;
  return { outcome, mode: run.mode, ingestion, status, ...counts.snapshot() };
}

/** Beyond the function's time limit: a lease outlives its run by this much at most. */
const LEASE_SLACK_MS = 60_000;

interface Progress {
  readonly outcome: SyncOutcome;
  readonly newestChange?: string;
}

async function pullChanges<Page extends PulledPage>(
  run: TicketSyncRun<Page>,
  cursor: string | undefined,
  counts: RunCounts,
  signal: AbortSignal,
): Promise<Progress> {
  let newestChange: string | undefined;
  const pages = run.source.pullChanged(cursor, { signal })[Symbol.asyncIterator]();
  try {
    for (;;) {
      if (run.remainingMs() < run.stopMarginMs)
        return { outcome: 'stopped_for_time', newestChange };
      const next = await pages.next();
      if (next.done) return { outcome: 'done', newestChange };
      const page = next.value;
      await writePage(run, run.renderPage(page), counts);
      await run.store.advance({ sourceId: run.sourceId, holder: run.holder }, page.cursor);
      counts.pages += 1;
      if (page.newestChange && (!newestChange || page.newestChange > newestChange)) {
        newestChange = page.newestChange;
      }
    }
  } finally {
    await pages.return?.();
  }
}

async function writePage<Page extends PulledPage>(
  run: TicketSyncRun<Page>,
  page: SyncedPage,
  counts: RunCounts,
): Promise<void> {
  counts.addSkipsAndScrubs(page);
  // A record twice in one page (changed while the page was read) is written once, at its last.
  const latest = new Map(page.tickets.map((ticket) => [ticket.issueId, ticket]));
  const removedIds = [...new Set(page.removedIds)].filter((id) => !latest.has(id));
  const known = await run.store.ticketHashes(run.sourceId, [...latest.keys(), ...removedIds]);
  const changed = [...latest.values()].filter(
    (ticket) => known.get(ticket.issueId) !== ticket.hash,
  );
  counts.unchanged += latest.size - changed.length;
  await inParallel(changed, run.parallelWrites, (ticket) => run.documents.write(ticket.files));
  const removed = removedIds.filter((id) => known.has(id));
  await inParallel(removed, run.parallelWrites, (id) =>
    run.documents.remove(ticketDocumentNames(id)),
  );
  await run.store.recordTickets(run.sourceId, {
    written: new Map(changed.map((ticket) => [ticket.issueId, ticket.hash])),
    removed,
  });
  for (const ticket of changed) {
    if (known.has(ticket.issueId)) counts.changed += 1;
    else counts.added += 1;
  }
  counts.removed += removed.length;
}

/**
 * Removes the tickets the system no longer lists (ServiceNow and Jira searches never return a
 * deleted record). Nothing is removed unless the whole listing was read, nor when the system
 * listed nothing while tickets are synced (a filter or permission change, not an empty desk).
 */
async function reconcile<Page extends PulledPage>(
  run: TicketSyncRun<Page>,
  counts: RunCounts,
  signal: AbortSignal,
): Promise<Progress> {
  const listed = new Set<string>();
  for await (const ids of run.source.listIds({ signal })) {
    for (const id of ids) listed.add(id);
    if (run.remainingMs() < run.stopMarginMs) return { outcome: 'stopped_for_time' };
  }
  for await (const ids of run.store.syncedIds(run.sourceId)) {
    const gone = ids.filter((id) => !listed.has(id));
    if (listed.size === 0 && ids.length > 0) {
      throw new Error(
        `${run.sourceId} listed no tickets while ${ids.length}+ are synced: nothing removed (check the filters and the account's permissions)`,
      );
    }
    if (run.remainingMs() < run.stopMarginMs) return { outcome: 'stopped_for_time' };
    await inParallel(gone, run.parallelWrites, (id) =>
      run.documents.remove(ticketDocumentNames(id)),
    );
    await run.store.recordTickets(run.sourceId, { written: new Map(), removed: gone });
    counts.removed += gone.length;
  }
  return { outcome: 'done' };
}

async function storeStatus<Page extends PulledPage>(
  run: TicketSyncRun<Page>,
  startedAt: Date,
  outcome: SyncOutcome,
  newestChange: string | undefined,
  counts: RunCounts,
  failure: unknown,
): Promise<SyncStatus> {
  const previous = (await run.store.readStatus([run.sourceId])).get(run.sourceId);
  const endedAt = run.now().toISOString();
  const newestChangeSeen = latestOf(previous?.newestChangeSeen, newestChange);
  const freshAsOf =
    failure === undefined && outcome === 'done' && run.mode === 'pull'
      ? startedAt.toISOString()
      : latestOf(previous?.freshAsOf, newestChange);
  const status: SyncStatus = {
    lastRunAt: endedAt,
    lastOutcome: failure === undefined ? outcome : 'failed',
    ...(failure !== undefined && { lastError: messageOf(failure) }),
    ...(failure === undefined
      ? { lastSuccessAt: endedAt }
      : previous?.lastSuccessAt && { lastSuccessAt: previous.lastSuccessAt }),
    ...(freshAsOf && { freshAsOf }),
    ...(newestChangeSeen && { newestChangeSeen }),
    lastRun: counts.snapshot(),
  };
  await run.store.writeStatus(run.sourceId, status);
  return status;
}

/**
 * How far the source's knowledge is behind, in seconds: now − `freshAsOf` (undefined before the
 * first run that wrote or caught up).
 */
export function lagSeconds(status: SyncStatus | undefined, now: Date): number | undefined {
  if (!status?.freshAsOf) return undefined;
  return Math.max(0, Math.round((now.getTime() - Date.parse(status.freshAsOf)) / 1000));
}

function latestOf(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}

/** The failure's message, first line, bounded: the source's adapters put no ticket text in it. */
function messageOf(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return (text.split('\n')[0] ?? '').slice(0, 300);
}

async function inParallel<Item>(
  items: readonly Item[],
  width: number,
  work: (item: Item) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < items.length; index = next++) {
      await work(items[index] as Item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

function emptyCounts(): SyncCounts {
  return new RunCounts().snapshot();
}

class RunCounts {
  pages = 0;
  added = 0;
  changed = 0;
  unchanged = 0;
  removed = 0;
  readonly skipped: Record<string, number> = {};
  readonly scrubbed: Record<string, number> = {};

  addSkipsAndScrubs(page: SyncedPage): void {
    for (const [reason, count] of Object.entries(page.skipped)) {
      if (count) this.skipped[reason] = (this.skipped[reason] ?? 0) + count;
    }
    for (const [kind, count] of Object.entries(page.scrubbed)) {
      if (count) this.scrubbed[kind] = (this.scrubbed[kind] ?? 0) + count;
    }
  }

  snapshot(): SyncCounts {
    return {
      pages: this.pages,
      added: this.added,
      changed: this.changed,
      unchanged: this.unchanged,
      removed: this.removed,
      skipped: { ...this.skipped },
      scrubbed: { ...this.scrubbed },
    };
  }
}
