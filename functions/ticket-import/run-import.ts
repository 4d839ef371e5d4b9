import { loadPersonNameAnalyzer } from '../knowledge/person-name-analyzer.js';
import type { ScrubSettings } from '../knowledge/personal-data-scrub.js';
import { ticketDocumentNames } from '../knowledge/ticket-document.js';
import {
  type ByteMeter,
  listExportFiles,
  type TextEncodingName,
  totalBytes,
} from './export-files.js';
import {
  MalformedRecordError,
  SKIP_REASONS,
  type SkipReason,
  SOURCE_LABELS,
  type SourceItem,
  type SourceName,
  ticketIdOf,
} from './imported-ticket.js';
import { readJiraExport } from './sources/jira.js';
import { readServiceNowExport } from './sources/servicenow.js';
import type { CommentPolicy, SourceOptions } from './sources/source-options.js';
import { readTabularExport, type TabularMapping } from './sources/tabular.js';
import { readZendeskExport } from './sources/zendesk.js';
import { ManifestError, StagedTicketFolder } from './staged-ticket-folder.js';
import {
  ImportUsageError,
  matchesRule,
  parseRestrictionRule,
  renderRecord,
  skipReasonOf,
  ticketContentHash,
} from './ticket-conversion.js';

/**
 * The import itself (`npm run import`, scripts/import.ts is its command line): reads a source's
 * export record by record, keeps the resolved records with a resolution text, scrubs their
 * text of personal data with the record's people, renders them as ticket documents
 * (`renderTicketDocuments`, the data/tickets format) and writes only the tickets whose content
 * changed since the last run, as the manifest in the output folder records them.
 *
 * Safety and the manifest: staged-ticket-folder.ts. A fatal error (a file that is not JSON,
 * `--strict` and a malformed record) leaves the output folder as it was.
 */

export { MANIFEST_NAME } from './staged-ticket-folder.js';
export {
  ImportUsageError,
  MAX_IMPORTED_TEXT,
  parseRestrictionRule,
  type RestrictionRule,
} from './ticket-conversion.js';

/** `--strict` and a malformed record: nothing was written. */
export class StrictImportError extends Error {
  override readonly name = 'StrictImportError';
}

export interface ImportOptions {
  readonly source: SourceName;
  /** Export files or folders. */
  readonly paths: readonly string[];
  /** The ticket folder to write; with `dryRun` the one to compare against (optional). */
  readonly outDir?: string;
  readonly mapping?: TabularMapping;
  readonly restrictedWhen?: readonly string[];
  readonly comments?: CommentPolicy;
  /** The encoding of CSV and JSON Lines files (`--encoding`); absent: detected per file. */
  readonly encoding?: TextEncodingName;
  /** Patterns and dictionary for the scrub (`parseScrubSettings` of `--scrub-settings`). */
  readonly scrubSettings?: ScrubSettings;
  /**
   * Find person names in free text with the person-name analyzer too (ADR 0019), not only by
   * phrasing and the record's person fields. @default true
   */
  readonly nameAnalyzer?: boolean;
  readonly dryRun?: boolean;
  readonly prune?: boolean;
  readonly strict?: boolean;
  /** Called now and then while reading (the command's progress line). */
  readonly onProgress?: (progress: ImportProgress) => void;
}

export interface ImportProgress {
  readonly records: number;
  readonly bytesRead: number;
  readonly totalBytes: number;
}

/** A malformed record as the report names it: file, record number, what is wrong (no record text). */
export interface MalformedRecord {
  readonly file: string;
  readonly recordNumber: number;
  readonly message: string;
}

export interface ImportReport {
  readonly source: SourceName;
  readonly dryRun: boolean;
  readonly records: number;
  readonly tickets: { readonly new: number; readonly changed: number; readonly unchanged: number };
  readonly removed: number;
  readonly skipped: Readonly<Record<SkipReason | 'idTaken', number>>;
  /** The first 100 malformed records (all are counted in `skipped.malformed`). */
  readonly malformed: readonly MalformedRecord[];
  readonly restricted: number;
  readonly restrictedByRule: Readonly<Record<string, number>>;
  /** Placeholders put in, per kind of personal data (counts only). */
  readonly scrubbed: Readonly<Record<string, number>>;
  /** Tickets whose text was cut to {@link MAX_IMPORTED_TEXT}: how many, and the first 100 ids. */
  readonly cutToSize: { readonly count: number; readonly ids: readonly string[] };
  /** Tickets whose category was changed to fit the safe character set, or replaced by `uncategorized`. */
  readonly categoriesChanged: number;
  /** Object names written (new or changed), for `--upload`. */
  readonly writtenNames: readonly string[];
  /** Object names removed by `--prune`. */
  readonly removedNames: readonly string[];
  /** Every ticket file of this source after the run (written or unchanged), for `--upload`. */
  readonly ticketNames: readonly string[];
}

const MAX_LISTED_MALFORMED = 100;
const MAX_LISTED_CUT = 100;

/** The default comment policy per source (docs/deploy.md). */
export const DEFAULT_COMMENTS: Readonly<Record<SourceName, CommentPolicy>> = {
  servicenow: 'none',
  jira: 'public',
  zendesk: 'public',
  csv: 'none',
  jsonl: 'none',
};

/** Runs an import; resolves to its report, rejects on a fatal error having written nothing. */
export async function runImport(options: ImportOptions): Promise<ImportReport> {
  const rules = [...(options.restrictedWhen ?? []), ...(options.mapping?.restrictedWhen ?? [])].map(
    parseRestrictionRule,
  );
  if ((options.source === 'csv' || options.source === 'jsonl') && !options.mapping) {
    throw new ImportUsageError(
      `--from ${options.source} needs --mapping mapping.json (see docs/deploy.md)`,
    );
  }
  if (!options.dryRun && !options.outDir) throw new ImportUsageError('--out <folder> is required');
  if (options.encoding && (options.source === 'jira' || options.source === 'zendesk')) {
    throw new ImportUsageError(
      `--encoding is for CSV and JSON Lines files; a ${SOURCE_LABELS[options.source]} export is JSON, always UTF-8`,
    );
  }
  const extensions =
    options.source === 'csv'
      ? ['.csv']
      : options.source === 'jsonl'
        ? ['.jsonl', '.ndjson']
        : options.source === 'servicenow'
          ? ['.json', '.csv']
          : ['.json'];
  const meter: ByteMeter & { total: number } = {
    bytesRead: 0,
    total: totalBytes(listExportFiles(options.paths, extensions)),
  };
  const sourceOptions: SourceOptions = {
    comments: options.comments ?? DEFAULT_COMMENTS[options.source],
    ...(options.encoding ? { encoding: options.encoding } : {}),
  };
  const analyzer = options.nameAnalyzer === false ? undefined : await loadPersonNameAnalyzer();
  const items = readSource(options, sourceOptions, meter);

  let folder: StagedTicketFolder;
  try {
    folder = StagedTicketFolder.open({
      outDir: options.outDir,
      source: options.source,
      write: !options.dryRun,
    });
  } catch (error) {
    if (error instanceof ManifestError) throw new ImportUsageError(error.message, { cause: error });
    throw error;
  }
  const previous = folder.previous;
  const next: Record<string, string> = {};

  const skipped = Object.fromEntries(
    [...Object.keys(SKIP_REASONS), 'idTaken'].map((reason) => [reason, 0]),
  ) as Record<SkipReason | 'idTaken', number>;
  const malformed: MalformedRecord[] = [];
  const restrictedByRule = Object.fromEntries(rules.map((rule) => [rule.text, 0]));
  const scrubbed: Record<string, number> = {};
  const cutToSize = { count: 0, ids: [] as string[] };
  let categoriesChanged = 0;
  const tickets = { new: 0, changed: 0, unchanged: 0 };
  const writtenNames: string[] = [];
  let restricted = 0;
  let records = 0;
  let lastProgress = 0;
  /** A malformed record: counted and listed (the first 100), or with --strict the end of the run. */
  const reportMalformed = (item: { file: string; recordNumber: number }, message: string) => {
    if (options.strict) {
      throw new StrictImportError(
        `${item.file} record ${item.recordNumber}: ${message} (--strict: nothing written)`,
      );
    }
    skipped.malformed += 1;
    if (malformed.length < MAX_LISTED_MALFORMED) {
      malformed.push({ file: item.file, recordNumber: item.recordNumber, message });
    }
  };

  try {
    for await (const item of items) {
      records += 1;
      if (options.onProgress && (records % 500 === 0 || Date.now() - lastProgress > 250)) {
        lastProgress = Date.now();
        options.onProgress({ records, bytesRead: meter.bytesRead, totalBytes: meter.total });
      }
      if ('malformed' in item) {
        reportMalformed(item, item.malformed);
        continue;
      }
      const reason = skipReasonOf(item.record, next);
      if (reason) {
        skipped[reason] += 1;
        continue;
      }
      let issueId: string;
      try {
        issueId = ticketIdOf(options.source, item.record.number);
      } catch (error) {
        if (!(error instanceof MalformedRecordError)) throw error;
        reportMalformed(item, error.message);
        continue;
      }
      const { documentName, sidecarName } = ticketDocumentNames(issueId);
      if (folder.isTakenByAnother(issueId, documentName)) {
        skipped.idTaken += 1;
        continue;
      }
      const matchedRules = rules.filter((rule) => matchesRule(item.record, rule));
      for (const rule of matchedRules)
        restrictedByRule[rule.text] = (restrictedByRule[rule.text] ?? 0) + 1;
      if (matchedRules.length > 0) restricted += 1;

      const rendered = renderRecord(
        issueId,
        item.record,
        matchedRules.length > 0,
        options,
        scrubbed,
        analyzer,
      );
      if (rendered.cut) {
        cutToSize.count += 1;
        if (cutToSize.ids.length < MAX_LISTED_CUT) cutToSize.ids.push(issueId);
      }
      if (rendered.categoryChanged) categoriesChanged += 1;
      const { files } = rendered;
      const hash = ticketContentHash(files);
      next[issueId] = hash;
      if (folder.isUnchanged(issueId, documentName, hash)) {
        tickets.unchanged += 1;
        continue;
      }
      if (issueId in previous) tickets.changed += 1;
      else tickets.new += 1;
      writtenNames.push(documentName, sidecarName);
      folder.stage(documentName, files.document);
      folder.stage(sidecarName, files.sidecar);
    }
    options.onProgress?.({ records, bytesRead: meter.bytesRead, totalBytes: meter.total });

    const removedIds = options.prune ? Object.keys(previous).filter((id) => !(id in next)) : [];
    const removedNames = removedIds.flatMap((id) => {
      const names = ticketDocumentNames(id);
      return [names.documentName, names.sidecarName];
    });
    folder.commit({
      hashes: next,
      writtenNames,
      removedNames,
      prune: options.prune ?? false,
    });
    return {
      source: options.source,
      dryRun: options.dryRun ?? false,
      records,
      tickets,
      removed: removedIds.length,
      skipped,
      malformed,
      restricted,
      restrictedByRule,
      scrubbed,
      cutToSize,
      categoriesChanged,
      writtenNames,
      removedNames,
      ticketNames: Object.keys(next).flatMap((id) => {
        const names = ticketDocumentNames(id);
        return [names.documentName, names.sidecarName];
      }),
    };
  } finally {
    folder.discard();
  }
}

function readSource(
  options: ImportOptions,
  sourceOptions: SourceOptions,
  meter: ByteMeter,
): AsyncIterable<SourceItem> {
  switch (options.source) {
    case 'servicenow':
      return readServiceNowExport(options.paths, sourceOptions, meter);
    case 'jira':
      return readJiraExport(options.paths, sourceOptions, meter);
    case 'zendesk':
      return readZendeskExport(options.paths, sourceOptions, meter);
    case 'csv':
    case 'jsonl':
      return readTabularExport(
        options.paths,
        options.source,
        options.mapping as TabularMapping,
        sourceOptions,
        meter,
      );
  }
}
