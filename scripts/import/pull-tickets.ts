import type { PersonNameAnalyzer } from '../../functions/knowledge/person-name-analyzer.js';
import type { ScrubSettings } from '../../functions/knowledge/personal-data-scrub.js';
import { SKIP_REASONS, ticketIdOf } from '../../functions/ticket-import/imported-ticket.js';
import type { CommentPolicy } from '../../functions/ticket-import/sources/source-options.js';
import {
  parseDeskRule,
  parseRestrictionRule,
} from '../../functions/ticket-import/ticket-conversion.js';
import {
  createTicketSource,
  type SourceRuntime,
} from '../../functions/ticket-sync/create-ticket-source.js';
import {
  type CursorStore,
  type SyncCounts,
  type SyncRunStatus,
  sourceKeyOf,
} from '../../functions/ticket-sync/cursor-store.js';
import { FileTicketDocumentStore } from '../../functions/ticket-sync/file-stores.js';
import {
  reconcileSource,
  runSync,
  type SyncRunReport,
} from '../../functions/ticket-sync/run-sync.js';
import {
  credentialsFromEnvironment,
  describeCredentialVariables,
  SourceAuthError,
  SourceRequestError,
  SourceUnavailableError,
} from '../../functions/ticket-sync/source-http.js';
import type { JiraDeployment } from '../../functions/ticket-sync/sources/jira-source.js';
import { initialCursor } from '../../functions/ticket-sync/sync-cursor.js';
import type { SyncSystem, TicketSource } from '../../functions/ticket-sync/ticket-source.js';

/**
 * `npm run import -- --from servicenow|jira|zendesk --url https://…`: pulls what changed since
 * the cursor kept beside `--out` into the folder (functions/ticket-sync/run-sync.ts), optionally
 * reconciles, records the run for `--status`. Credentials come only from the environment
 * (`describeCredentialVariables`); they are never printed.
 */

export interface PullOptions {
  readonly system: SyncSystem;
  readonly url: string;
  readonly outDir: string;
  readonly tables?: readonly string[];
  readonly jql?: string;
  readonly jiraDeployment?: JiraDeployment;
  readonly since?: string;
  readonly comments: CommentPolicy;
  readonly restrictedWhen: readonly string[];
  /** `--desk-when field=value=desk` rules (ADR 0029). */
  readonly deskWhen?: readonly string[];
  readonly scrubSettings?: ScrubSettings;
  readonly analyzer?: PersonNameAnalyzer;
  readonly reconcile: boolean;
  readonly dryRun: boolean;
  readonly pageSize?: number;
}

export interface PullIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly runtime: SourceRuntime;
  readonly cursors: CursorStore;
  readonly signal: AbortSignal;
  readonly log: (line: string) => void;
  readonly error: (line: string) => void;
  readonly now: () => Date;
}

/** What names the system to pull from and how its records become tickets (the folder aside). */
export type PullSourceOptions = Omit<PullOptions, 'outDir' | 'reconcile' | 'dryRun'>;

/**
 * The source to pull from, with credentials from the environment, and its cursor's key; or
 * undefined after a usage error is printed (no credentials, a bad `--since` or URL: exit 2).
 */
export function openPullSource(
  options: PullSourceOptions,
  io: Pick<PullIo, 'env' | 'runtime' | 'error'>,
): { readonly source: TicketSource; readonly sourceKey: string } | undefined {
  const credentials = credentialsFromEnvironment(options.system, io.env);
  if (!credentials) {
    io.error(
      `Set ${describeCredentialVariables(options.system)} in the environment for --from ${options.system} --url (never as flags).`,
    );
    return undefined;
  }
  if (options.since && Number.isNaN(Date.parse(options.since))) {
    io.error(`--since ${options.since}: not a date (write 2024-01-31 or 2024-01-31T09:00:00Z)`);
    return undefined;
  }
  try {
    const source = createTicketSource(
      {
        system: options.system,
        url: options.url,
        credentials,
        credentialSource: describeCredentialVariables(options.system),
        comments: options.comments,
        ...(options.tables ? { tables: options.tables } : {}),
        ...(options.jql ? { jql: options.jql } : {}),
        ...(options.jiraDeployment ? { jiraDeployment: options.jiraDeployment } : {}),
        ...(options.pageSize ? { pageSize: options.pageSize } : {}),
      },
      io.runtime,
    );
    return { source, sourceKey: sourceKeyOf(options.system, options.url, options.tables ?? []) };
  } catch (error) {
    io.error((error as Error).message);
    return undefined;
  }
}

/** Runs one pull; resolves to the exit code (0 done or stopped resumably, 1 failed, 2 usage). */
export async function pullTickets(options: PullOptions, io: PullIo): Promise<number> {
  const opened = openPullSource(options, io);
  if (!opened) return 2;
  const { source, sourceKey } = opened;
  const documents = new FileTicketDocumentStore(options.outDir, options.system);
  const before = (await io.cursors.status()).find((status) => status.sourceKey === sourceKey);
  let report: SyncRunReport | undefined;
  try {
    report = await runSync({
      sourceKey,
      source,
      cursors: io.cursors,
      documents,
      settings: {
        system: options.system,
        rules: options.restrictedWhen.map(parseRestrictionRule),
        deskRules: (options.deskWhen ?? []).map(parseDeskRule),
        ...(options.scrubSettings ? { scrubSettings: options.scrubSettings } : {}),
        ...(options.analyzer ? { analyzer: options.analyzer } : {}),
      },
      firstCursor: initialCursor(options.since ? { since: options.since } : {}),
      signal: io.signal,
      dryRun: options.dryRun,
    });
    printPull(report, options, io);
    let removedByReconciliation = 0;
    if (options.reconcile && report.outcome === 'complete') {
      const reconciled = await reconcileSource({
        source,
        documents,
        settings: { system: options.system },
        signal: io.signal,
        dryRun: options.dryRun,
        ticketIdOf: (number) => {
          try {
            return ticketIdOf(options.system, number);
          } catch {
            return undefined;
          }
        },
      });
      removedByReconciliation = reconciled.removed.length;
      io.log(
        source.listIds
          ? `Reconciliation: ${reconciled.listed} ticket(s) listed; ${reconciled.removed.length} ${options.dryRun ? 'would be ' : ''}removed (no longer in ${source.system}).`
          : 'Reconciliation: not needed, the export reports deletions.',
      );
    }
    if (!options.dryRun) {
      await io.cursors.recordRun({
        sourceKey,
        system: options.system,
        endedAt: io.now().toISOString(),
        outcome: report.outcome,
        ...(before?.lastSuccessAt ? { lastSuccessAt: before.lastSuccessAt } : {}),
        counts: { ...report.counts, removed: report.counts.removed + removedByReconciliation },
        ...(report.newestChange ? { newestChange: report.newestChange } : {}),
      });
    }
    return 0;
  } catch (error) {
    const known =
      error instanceof SourceAuthError ||
      error instanceof SourceUnavailableError ||
      error instanceof SourceRequestError;
    if (!known && !(io.signal.aborted && (error as Error).name === 'AbortError')) throw error;
    io.error(`FAILED: ${(error as Error).message}`);
    if (!options.dryRun) {
      await io.cursors.recordRun({
        sourceKey,
        system: options.system,
        endedAt: io.now().toISOString(),
        outcome: 'failed',
        error: (error as Error).name,
        ...(before?.lastSuccessAt ? { lastSuccessAt: before.lastSuccessAt } : {}),
        counts: report?.counts ?? before?.counts ?? zeroCounts(),
      });
    }
    return 1;
  }
}

function zeroCounts(): SyncCounts {
  return {
    records: 0,
    added: 0,
    changed: 0,
    unchanged: 0,
    removed: 0,
    skipped: Object.fromEntries(
      [...Object.keys(SKIP_REASONS), 'idTaken'].map((r) => [r, 0]),
    ) as SyncCounts['skipped'],
    scrubbed: {},
  };
}

function printPull(report: SyncRunReport, options: PullOptions, io: PullIo): void {
  const { counts } = report;
  const verb = options.dryRun ? 'would be written' : 'written';
  io.log(
    `${counts.records} changed record(s) pulled from ${report.sourceKey} in ${report.pages} page(s). Tickets: ` +
      `${counts.added} new, ${counts.changed} changed (${verb}), ${counts.unchanged} unchanged in ${options.outDir}; ` +
      `${counts.removed} ${options.dryRun ? 'would be ' : ''}removed (reopened, merged or deleted).`,
  );
  if (report.outcome === 'stopped')
    io.log('Stopped before the end: the next run resumes where this one stopped.');
  printSkipsAndScrub(counts, io.log);
  for (const item of report.malformed) {
    io.log(
      `  malformed: record ${item.sourceId}: ${item.message} (read again when it next changes, or with --since)`,
    );
  }
}

export function printSkipsAndScrub(counts: SyncCounts, log: (line: string) => void): void {
  const skips = Object.entries(counts.skipped).filter(([, count]) => count > 0);
  if (skips.length > 0) {
    log('Skipped:');
    for (const [reason, count] of skips) {
      const label =
        reason === 'idTaken'
          ? 'id taken by a ticket this source did not write'
          : SKIP_REASONS[reason as keyof typeof SKIP_REASONS];
      log(`  ${String(count).padStart(7)}  ${label}`);
    }
  }
  const scrubbed = Object.entries(counts.scrubbed).filter(([, count]) => count > 0);
  log(
    `Personal data replaced: ${scrubbed.length === 0 ? 'none found' : scrubbed.map(([kind, count]) => `${kind} ${count}`).join(', ')}.`,
  );
}

/** `--status`: per source, the last sync, its counts and the lag. */
export function printSyncStatus(
  statuses: readonly SyncRunStatus[],
  now: Date,
  log: (line: string) => void,
): void {
  if (statuses.length === 0) {
    log(
      'No source has been synced into this folder yet (npm run import -- --from <system> --url …).',
    );
    return;
  }
  for (const status of statuses) {
    const lag = status.newestChange
      ? formatDuration(now.getTime() - Date.parse(status.newestChange))
      : 'unknown';
    log(`${status.sourceKey}`);
    log(
      `  last run ${status.endedAt} ${status.outcome}${status.error ? ` (${status.error})` : ''}; last successful sync ${status.lastSuccessAt ?? 'never'}`,
    );
    log(
      `  ${status.counts.added} added, ${status.counts.changed} changed, ${status.counts.removed} removed, ${status.counts.unchanged} unchanged of ${status.counts.records} record(s) read`,
    );
    log(`  lag ${lag} (newest change seen ${status.newestChange ?? 'none'})`);
    printSkipsAndScrub(status.counts, (line) => log(`  ${line}`));
  }
}

function formatDuration(milliseconds: number): string {
  const minutes = Math.max(0, Math.round(milliseconds / 60_000));
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
}
