import type { PersonNameAnalyzer } from '../knowledge/person-name-analyzer.js';
import type { ScrubSettings } from '../knowledge/personal-data-scrub.js';
import { ticketDocumentNames } from '../knowledge/ticket-document.js';
import {
  MalformedRecordError,
  SKIP_REASONS,
  type SkipReason,
  ticketIdOf,
} from '../ticket-import/imported-ticket.js';
import {
  matchesRule,
  type RestrictionRule,
  renderRecord,
  skipReasonOf,
  ticketContentHash,
} from '../ticket-import/ticket-conversion.js';
import type { SyncCounts } from './cursor-store.js';
import type {
  DocumentChanges,
  StoredTickets,
  TicketDocumentWrite,
} from './ticket-document-store.js';
import type { PulledRecord, SourcePage, SyncSystem } from './ticket-source.js';

/**
 * One page of changed records → the documents to write and remove, by the file import's
 * conversion (ticket-conversion.ts), pure: the caller writes them, then saves the cursor.
 *
 * - A record that became a ticket is written when its content hash differs from the stored one
 *   (the overlap's re-reads and a record listed twice are not written again); listed twice in a
 *   page, only its latest version counts.
 * - A record that no longer makes a ticket — reopened, merged into another, its resolution
 *   emptied — removes the document this source wrote for it; so does a deletion the system
 *   reports.
 * - A malformed record is counted and named by its source id (never its text) and skipped: the
 *   cursor moves past it, and it is read again when it next changes or when a run starts over
 *   with `--since` (docs/ticket-import.md).
 */

export interface SyncSettings {
  readonly system: SyncSystem;
  readonly rules: readonly RestrictionRule[];
  readonly scrubSettings?: ScrubSettings;
  readonly analyzer?: PersonNameAnalyzer;
}

export interface PageOutcome {
  readonly changes: DocumentChanges;
  readonly counts: SyncCounts;
  readonly malformed: readonly { readonly sourceId: string; readonly message: string }[];
  /** The newest `updatedAt` of the page's records. */
  readonly newestChange?: string;
}

export function emptyCounts(): SyncCounts {
  return {
    records: 0,
    added: 0,
    changed: 0,
    unchanged: 0,
    removed: 0,
    skipped: Object.fromEntries(
      [...Object.keys(SKIP_REASONS), 'idTaken'].map((reason) => [reason, 0]),
    ) as Record<SkipReason | 'idTaken', number>,
    scrubbed: {},
  };
}

/** Adds `b` into `a`'s numbers (a new object). */
export function addCounts(a: SyncCounts, b: SyncCounts): SyncCounts {
  const sum = (x: Readonly<Record<string, number>>, y: Readonly<Record<string, number>>) => {
    const out: Record<string, number> = { ...x };
    for (const [key, value] of Object.entries(y)) out[key] = (out[key] ?? 0) + value;
    return out;
  };
  return {
    records: a.records + b.records,
    added: a.added + b.added,
    changed: a.changed + b.changed,
    unchanged: a.unchanged + b.unchanged,
    removed: a.removed + b.removed,
    skipped: sum(a.skipped, b.skipped) as SyncCounts['skipped'],
    scrubbed: sum(a.scrubbed, b.scrubbed),
  };
}

export function syncPage(
  page: Pick<SourcePage, 'records' | 'deletedNumbers'>,
  stored: StoredTickets,
  settings: SyncSettings,
): PageOutcome {
  const counts = emptyCounts();
  const skipped = counts.skipped as Record<SkipReason | 'idTaken', number>;
  const scrubbed: Record<string, number> = {};
  const malformed: { sourceId: string; message: string }[] = [];
  const written = new Map<string, TicketDocumentWrite>();
  const removed = new Set<string>();
  let added = 0;
  let changed = 0;
  let unchanged = 0;
  let newestChange: string | undefined;

  for (const item of latestOfEach(page.records)) {
    if (item.updatedAt && (!newestChange || item.updatedAt > newestChange)) {
      newestChange = item.updatedAt;
    }
    if ('malformed' in item) {
      skipped.malformed += 1;
      malformed.push({ sourceId: item.sourceId, message: item.malformed });
      continue;
    }
    const reason = skipReasonOf(item.record, {});
    let issueId: string;
    try {
      issueId = ticketIdOf(settings.system, item.record.number);
    } catch (error) {
      if (!(error instanceof MalformedRecordError)) throw error;
      if (reason) {
        skipped[reason] += 1;
        continue;
      }
      skipped.malformed += 1;
      malformed.push({ sourceId: item.sourceId, message: error.message });
      continue;
    }
    if (reason) {
      skipped[reason] += 1;
      if (stored.hashes.has(issueId)) removed.add(issueId);
      continue;
    }
    const { documentName, sidecarName } = ticketDocumentNames(issueId);
    if (stored.isTakenByAnother(issueId, documentName)) {
      skipped.idTaken += 1;
      continue;
    }
    const matched = settings.rules.filter((rule) => matchesRule(item.record, rule));
    const { files } = renderRecord(
      issueId,
      item.record,
      matched.length > 0,
      {
        source: settings.system,
        ...(settings.scrubSettings ? { scrubSettings: settings.scrubSettings } : {}),
      },
      scrubbed,
      settings.analyzer,
    );
    const hash = ticketContentHash(files);
    const before = stored.hashes.get(issueId);
    if (before === hash) {
      unchanged += 1;
      continue;
    }
    if (before === undefined) added += 1;
    else changed += 1;
    written.set(issueId, {
      issueId,
      hash,
      documentName,
      sidecarName,
      document: files.document,
      sidecar: files.sidecar,
    });
  }
  for (const number of page.deletedNumbers ?? []) {
    try {
      const issueId = ticketIdOf(settings.system, number);
      if (stored.hashes.has(issueId) && !written.has(issueId)) removed.add(issueId);
    } catch (error) {
      if (!(error instanceof MalformedRecordError)) throw error;
    }
  }
  return {
    changes: { written: [...written.values()], removed: [...removed] },
    counts: {
      ...counts,
      records: page.records.length,
      added,
      changed,
      unchanged,
      removed: removed.size,
      skipped,
      scrubbed,
    },
    malformed,
    ...(newestChange ? { newestChange } : {}),
  };
}

/** The page's records, each source id once at its latest `updatedAt` (in first-seen order). */
function latestOfEach(records: readonly PulledRecord[]): PulledRecord[] {
  const latest = new Map<string, PulledRecord>();
  for (const item of records) {
    const seen = latest.get(item.sourceId);
    if (!seen || (item.updatedAt ?? '') >= (seen.updatedAt ?? '')) latest.set(item.sourceId, item);
  }
  return [...latest.values()];
}
