import type { KnowledgeDocuments, SyncBacklog } from '../knowledge/ports.js';
import type { SyncCounts } from './cursor-store.js';
import { reconcileSource, runSync } from './run-sync.js';
import { laterOf, type SyncCursor } from './sync-cursor.js';
import { emptyCounts, type SyncSettings } from './sync-page.js';
import {
  type DeployedSyncStatus,
  type LeasedCursorStore,
  LeaseLostError,
  type SyncMode,
} from './sync-status.js';
import type { TicketDocumentStore } from './ticket-document-store.js';
import type { TicketSource } from './ticket-source.js';

/**
 * One scheduled run of a source in the deployed stack (ADR 0032): `runSync` or
 * `reconcileSource` (run-sync.ts) under the source's lease, stopped before Lambda's time limit,
 * then one ingestion job for whatever it wrote and the run's status.
 *
 * - The lease: of two overlapping runs (a slow one and the next schedule, or the pull and the
 *   reconciliation) one runs and the other returns `busy`; the cursor store's `save` is
 *   conditional on holding it, so a run that outlived its lease cannot move the cursor back.
 * - The time limit: the run's signal is aborted `stopMarginMs` before it; `runSync` stops after
 *   the page it is writing, or a fetch in flight is cut, and the cursor stays at the last page
 *   written — the next run resumes there (a first run over 100,000 tickets spans invocations).
 *   The command line (`npm run import -- --url … --upload`) has no limit: its lease runs
 *   {@link MAX_LEASE_MS} ahead and moves on as its pages are written, so a killed command holds
 *   the source for minutes, not for good; Ctrl-C (`signal`) stops it as the limit stops Lambda.
 * - Ingestion: one `StartIngestionJob` per run that wrote or removed a document; when a job is
 *   running, the sync is marked owed and the sync catch-up starts it (ADR 0011).
 */

export interface DeployedSyncRun {
  readonly mode: SyncMode;
  readonly sourceKey: string;
  readonly source: TicketSource;
  readonly settings: SyncSettings;
  readonly firstCursor: SyncCursor;
  readonly cursors: LeasedCursorStore;
  readonly documents: TicketDocumentStore;
  readonly knowledgeBase: Pick<KnowledgeDocuments, 'startSync'>;
  readonly syncBacklog: Pick<SyncBacklog, 'markPending'>;
  /** The ticket id of a number the system lists (reconciliation). */
  readonly ticketIdOf: (number: string) => string | undefined;
  readonly now: () => Date;
  /**
   * Milliseconds left before the function's time limit (`context.getRemainingTimeInMillis`);
   * `Infinity` on the command line, which has none.
   */
  readonly remainingMs: () => number;
  /** The run stops taking pages this long before the limit: one page's fetch and writes fit in it. */
  readonly stopMarginMs: number;
  /** Stops the run as the time limit does (the command line's Ctrl-C). */
  readonly signal?: AbortSignal;
}

export interface DeployedSyncResult {
  readonly outcome: 'complete' | 'stopped' | 'busy';
  readonly mode: SyncMode;
  readonly pages: number;
  readonly counts: SyncCounts;
  readonly ingestion: 'started' | 'owed' | 'none';
  /** The status stored (absent when another run held the lease). */
  readonly status?: DeployedSyncStatus;
}

/** Beyond the function's time limit: a lease outlives a run that died by this much at most. */
const LEASE_SLACK_MS = 60_000;
/** The longest lease taken at once: Lambda's longest run; a run without a limit renews it. */
const MAX_LEASE_MS = 15 * 60_000;
/** A run without a limit moves its lease on after a page once it would gain this much. */
const LEASE_RENEWAL_STEP_MS = 60_000;

/** Runs one pull or reconciliation; a failure is stored in the status, then rethrown. */
export async function runDeployedSync(run: DeployedSyncRun): Promise<DeployedSyncResult> {
  const startedAt = run.now();
  // In Lambda now + remaining is the same instant all run long: its lease is never moved on.
  const leaseEnd = (now: Date) =>
    new Date(now.getTime() + Math.min(run.remainingMs(), MAX_LEASE_MS) + LEASE_SLACK_MS);
  let until = leaseEnd(startedAt);
  if ((await run.cursors.claim(startedAt, until)) === 'held') {
    return { outcome: 'busy', mode: run.mode, pages: 0, counts: emptyCounts(), ingestion: 'none' };
  }
  const stop = new AbortController();
  const stopWith = () => stop.abort(run.signal?.reason);
  run.signal?.addEventListener('abort', stopWith, { once: true });
  if (run.signal?.aborted) stopWith();
  // A fetch that hangs (a long rate-limit wait) is cut when half the margin is gone.
  const untilCut = run.remainingMs() - run.stopMarginMs / 2;
  const timer = Number.isFinite(untilCut)
    ? setTimeout(() => stop.abort(new Error('the time limit is near')), Math.max(0, untilCut))
    : undefined;
  // What was written before a failure stays written: its counts come from the documents.
  const written = countingDocuments(run.documents);
  let outcome: 'complete' | 'stopped' = 'complete';
  let pages = 0;
  let newestChange: string | undefined;
  let failure: unknown;
  try {
    if (run.mode === 'pull') {
      const report = await runSync({
        sourceKey: run.sourceKey,
        source: run.source,
        cursors: run.cursors,
        documents: written.store,
        settings: run.settings,
        firstCursor: run.firstCursor,
        signal: stop.signal,
        onPage: async (progress) => {
          pages = progress.pages;
          written.counts = progress.counts;
          // Between pages: the next page's fetch and writes must fit in what is left.
          if (run.remainingMs() < run.stopMarginMs) stop.abort(new Error('the time limit is near'));
          const now = run.now();
          const next = leaseEnd(now);
          if (next.getTime() - until.getTime() >= LEASE_RENEWAL_STEP_MS) {
            if ((await run.cursors.claim(now, next)) === 'held') {
              throw new LeaseLostError(
                'another run took the sync’s lease; this run stops without moving the cursor',
              );
            }
            until = next;
          }
        },
      });
      outcome = report.outcome;
      newestChange = report.newestChange;
    } else {
      const result = await reconcileSource({
        source: listingCounted(run.source, written),
        documents: written.store,
        settings: run.settings,
        signal: stop.signal,
        ticketIdOf: run.ticketIdOf,
      });
      if (stop.signal.aborted) outcome = 'stopped';
      written.counts = { ...emptyCounts(), removed: result.removed.length };
    }
  } catch (error) {
    // A fetch cut by the deadline is a stop: the cursor is where the last written page left it.
    if (stop.signal.aborted && !(error instanceof LeaseLostError)) outcome = 'stopped';
    else failure = error;
  } finally {
    clearTimeout(timer);
    run.signal?.removeEventListener('abort', stopWith);
  }

  let ingestion: DeployedSyncResult['ingestion'] = 'none';
  if (written.documentsChanged > 0) {
    ingestion = (await run.knowledgeBase.startSync()) === 'started' ? 'started' : 'owed';
    if (ingestion === 'owed') await run.syncBacklog.markPending(run.now());
  }
  const previous = (await run.cursors.status()).find(
    (status) => status.sourceKey === run.sourceKey,
  ) as DeployedSyncStatus | undefined;
  const endedAt = run.now().toISOString();
  const freshAsOf =
    failure === undefined && outcome === 'complete' && run.mode === 'pull'
      ? startedAt.toISOString()
      : laterOf(previous?.freshAsOf, newestChange);
  const status: DeployedSyncStatus = {
    sourceKey: run.sourceKey,
    system: run.settings.system,
    mode: run.mode,
    endedAt,
    outcome: failure === undefined ? outcome : 'failed',
    ...(failure !== undefined && { error: messageOf(failure) }),
    ...(failure === undefined && outcome === 'complete'
      ? { lastSuccessAt: endedAt }
      : previous?.lastSuccessAt && { lastSuccessAt: previous.lastSuccessAt }),
    counts: written.counts,
    ...(laterOf(previous?.newestChange, newestChange) && {
      newestChange: laterOf(previous?.newestChange, newestChange),
    }),
    ...(freshAsOf && { freshAsOf }),
  };
  await run.cursors.recordRun(status);
  await run.cursors.release();
  if (failure !== undefined) throw failure;
  return { outcome, mode: run.mode, pages, counts: written.counts, ingestion, status };
}

/** The documents, counting what reached the bucket (a failure's partial page included). */
function countingDocuments(documents: TicketDocumentStore) {
  const counting = {
    counts: emptyCounts(),
    documentsChanged: 0,
    listed: 0,
    store: {
      load: () => documents.load(),
      async apply(changes) {
        // A reconciliation that listed nothing while tickets are synced is a broken filter or a
        // lost permission, not an empty system: nothing is removed.
        if (counting.listing && counting.listed === 0 && changes.removed.length > 0) {
          throw new Error(
            `the system listed no tickets while ${changes.removed.length} are synced: nothing removed (check the filters and the account's read rights)`,
          );
        }
        await documents.apply(changes);
        counting.documentsChanged += changes.written.length + changes.removed.length;
      },
    } satisfies TicketDocumentStore,
    listing: false,
  };
  return counting;
}

/** The source with its listing counted (for the empty-listing guard above). */
function listingCounted(
  source: TicketSource,
  counting: ReturnType<typeof countingDocuments>,
): TicketSource {
  const { listIds } = source;
  if (!listIds) return source;
  counting.listing = true;
  return {
    system: source.system,
    pullChanged: (cursor, signal) => source.pullChanged(cursor, signal),
    async *listIds(signal) {
      for await (const batch of listIds.call(source, signal)) {
        counting.listed += batch.length;
        yield batch;
      }
    },
  };
}

/** The failure's first line, bounded: the sources' errors name the source and secret, no ticket text. */
function messageOf(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return (text.split('\n')[0] ?? '').slice(0, 400);
}
