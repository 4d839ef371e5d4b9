import { createHash } from 'node:crypto';
import { ALL_DESK, DESK_NAME_PATTERN } from '../../functions/contract/desks.js';
import { MAX_CATEGORY_LENGTH, sanitizeTicketCategory } from '../../functions/contract/knowledge.js';
import {
  loadPersonNameAnalyzer,
  type PersonNameAnalyzer,
  peopleFromNames,
} from '../../functions/knowledge/person-name-analyzer.js';
import {
  languageOf,
  type Person,
  peopleNamedIn,
  type ScrubSettings,
  scrubPersonalData,
} from '../../functions/knowledge/personal-data-scrub.js';
import {
  type ImportedTicketSource,
  renderTicketDocuments,
  ticketDocumentNames,
} from '../../functions/knowledge/ticket-document.js';
import {
  type ByteMeter,
  listExportFiles,
  type TextEncodingName,
  totalBytes,
} from './export-files.js';
import {
  type ImportedRecord,
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

/** A `--restricted-when field=value` rule. */
export interface RestrictionRule {
  readonly text: string;
  readonly field: string;
  readonly value: string;
}

/** Parses `field=value` (the value may be empty; matching is case-insensitive). */
export function parseRestrictionRule(text: string): RestrictionRule {
  const separator = text.indexOf('=');
  if (separator <= 0) {
    throw new ImportUsageError(
      `--restricted-when ${JSON.stringify(text)}: write it as field=value`,
    );
  }
  return {
    text,
    field: text.slice(0, separator).trim(),
    value: text
      .slice(separator + 1)
      .trim()
      .toLowerCase(),
  };
}

/** A `--desk-when field=value=desk` rule: a matching ticket belongs to `desk` (ADR 0029). */
export interface DeskRule extends RestrictionRule {
  readonly desk: string;
}

/**
 * Parses `field=value=desk`: the field ends at the first `=`, the desk starts after the last (the
 * value between may hold `=`; matching is case-insensitive, as `--restricted-when`'s).
 */
export function parseDeskRule(text: string): DeskRule {
  const first = text.indexOf('=');
  const last = text.lastIndexOf('=');
  const desk = text.slice(last + 1).trim();
  if (first <= 0 || last === first || !DESK_NAME_PATTERN.test(desk)) {
    throw new ImportUsageError(
      `--desk-when ${JSON.stringify(text)}: write it as field=value=desk (a desk is 1-40 of A-Z a-z 0-9 . _ -)`,
    );
  }
  return {
    text,
    field: text.slice(0, first).trim(),
    value: text
      .slice(first + 1, last)
      .trim()
      .toLowerCase(),
    desk,
  };
}

/** Bad command-line input or settings: the message says what to change. */
export class ImportUsageError extends Error {
  override readonly name = 'ImportUsageError';
}

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
  /**
   * `field=value=desk` rules (`--desk-when`, then the mapping's `deskWhen`): the first that
   * matches names the ticket's desk; none: `all` (ADR 0029).
   */
  readonly deskWhen?: readonly string[];
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
  /** Tickets per desk rule that decided their desk (the rest are `all`). */
  readonly deskByRule: Readonly<Record<string, number>>;
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

/**
 * The most text a ticket document keeps, in characters: its subject, its inquiry, and its
 * resolution steps together. A 9 MB description (a pasted log, a mail thread) is no answer a
 * retrieval can use and costs its embedding many times over; the report names each ticket cut.
 */
export const MAX_IMPORTED_TEXT = { subject: 200, inquiry: 20_000, resolution: 20_000 } as const;
/**
 * Text kept past a limit until after the scrub, so the scrub sees whole whatever the final cut
 * goes through (a phone number, an e-mail address cut in half would no longer be recognised).
 */
const SCRUB_MARGIN = 1_000;
/** A category none of whose characters fit the safe set. */
const UNCATEGORIZED = 'uncategorized';
/** Between a record's fields in its one scrub call. */
const FIELD_SEPARATOR = '\n\u001e\n';

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
  const deskRules = [...(options.deskWhen ?? []), ...(options.mapping?.deskWhen ?? [])].map(
    parseDeskRule,
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
  const deskByRule = Object.fromEntries(deskRules.map((rule) => [rule.text, 0]));
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
      const deskRule = deskRules.find((rule) => matchesRule(item.record, rule));
      if (deskRule) deskByRule[deskRule.text] = (deskByRule[deskRule.text] ?? 0) + 1;

      const rendered = renderRecord(
        issueId,
        item.record,
        { restricted: matchedRules.length > 0, desk: deskRule?.desk ?? ALL_DESK },
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
      const hash = createHash('sha256')
        .update(files.document)
        .update('\0')
        .update(files.sidecar)
        .digest('hex');
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
      deskByRule,
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

function skipReasonOf(
  record: ImportedRecord,
  accepted: Readonly<Record<string, string>>,
): SkipReason | undefined {
  if (record.duplicate) return 'duplicate';
  if (!record.resolved) return 'notResolved';
  if (record.resolution.every((step) => step.trim() === '')) return 'noResolutionText';
  if (record.number.trim() in accepted) return 'repeatedNumber';
  return undefined;
}

function matchesRule(record: ImportedRecord, rule: RestrictionRule): boolean {
  const values =
    rule.field === 'category'
      ? [record.category, ...(record.fields.category ?? [])]
      : record.fields[rule.field];
  return (values ?? []).some((value) => value.trim().toLowerCase() === rule.value);
}

/**
 * Scrubs the record's text with its people and renders the ticket documents (restricted or not,
 * of its desk), its text cut to
 * {@link MAX_IMPORTED_TEXT} (`cut`) and its category to the safe character set (`categoryChanged`).
 */
function renderRecord(
  issueId: string,
  unbounded: ImportedRecord,
  access: { readonly restricted: boolean; readonly desk: string },
  options: ImportOptions,
  scrubbed: Record<string, number>,
  analyzer: PersonNameAnalyzer | undefined,
) {
  // Cut with a margin before the scrub (it need not read megabytes), to the limit after it.
  const margin = bounded(unbounded, SCRUB_MARGIN, false);
  const record = margin.record;
  const language = languageOf(`${record.subject}\n${record.inquiry}`);
  // The person fields, and whoever the text addresses by name (`山田さん`, `Mr. Brown`): a
  // display=false ServiceNow export has only sys_ids in its person fields.
  const freeText = [record.subject, record.inquiry, ...record.resolution].join('\n');
  const people: Person[] = [
    ...record.people,
    ...peopleNamedIn(freeText),
    ...(analyzer ? peopleFromNames(analyzer.names(freeText)) : []),
  ];
  // One scrub call per record, not per field: the scrub builds its name matchers per call, and
  // a record's people are the same for all its fields. The fields are joined by a separator no
  // detector matches or crosses (a control character on a line of its own) and split again.
  const fields = [record.subject, record.category, record.inquiry, ...record.resolution];
  const joined = scrubPersonalData(fields.join(FIELD_SEPARATOR), {
    ...options.scrubSettings,
    people,
    language,
  });
  let scrubbedFields = joined.text.split(FIELD_SEPARATOR);
  let counts: Record<string, number> = { ...joined.counts };
  if (scrubbedFields.length !== fields.length) {
    // A configured pattern swallowed a separator: scrub field by field instead.
    const results = fields.map((text) =>
      scrubPersonalData(text, { ...options.scrubSettings, people, language }),
    );
    scrubbedFields = results.map((result) => result.text);
    counts = {};
    for (const result of results) {
      for (const [kind, count] of Object.entries(result.counts)) {
        counts[kind] = (counts[kind] ?? 0) + count;
      }
    }
  }
  for (const [kind, count] of Object.entries(counts)) {
    if (count) scrubbed[kind] = (scrubbed[kind] ?? 0) + count;
  }
  const [scrubbedSubject = '', scrubbedCategory = '', scrubbedInquiry = '', ...scrubbedSteps] =
    scrubbedFields;
  const fitted = bounded(
    {
      ...record,
      subject: scrubbedSubject,
      inquiry: scrubbedInquiry,
      resolution: scrubbedSteps,
    },
    0,
    true,
  );
  const { subject, inquiry, resolution } = fitted.record;
  const category = safeCategory(scrubbedCategory.replace(/[\r\n]+/g, ' '));
  const source: ImportedTicketSource = {
    system: options.source,
    systemLabel: SOURCE_LABELS[options.source],
    openedOn: record.openedOn,
    resolvedOn: record.resolvedOn,
  };
  const files = renderTicketDocuments(
    issueId,
    {
      subject: subject.replace(/[\r\n]+/g, ' '),
      category,
      inquiry,
      resolution: resolution.filter((step) => step.trim() !== ''),
      ...access,
    },
    source,
  );
  return {
    files,
    cut: margin.cut || fitted.cut,
    categoryChanged: category !== record.category.trim(),
  };
}

/**
 * The record with its subject, inquiry and resolution steps (together) within
 * {@link MAX_IMPORTED_TEXT} plus `margin`; `marked` ends a cut text with ` …` at a line break or
 * space near the limit, outside a `[placeholder]`.
 */
function bounded(
  record: ImportedRecord,
  margin: number,
  marked: boolean,
): { record: ImportedRecord; cut: boolean } {
  let cut = false;
  const within = (text: string, limit: number): string => {
    if (text.length <= limit) return text;
    cut = true;
    return marked ? cutMarked(text, limit) : text.slice(0, limit);
  };
  const subject = within(record.subject, MAX_IMPORTED_TEXT.subject + margin);
  const inquiry = within(record.inquiry, MAX_IMPORTED_TEXT.inquiry + margin);
  let room = MAX_IMPORTED_TEXT.resolution + margin;
  const resolution: string[] = [];
  for (const step of record.resolution) {
    if (room <= 0) {
      cut = true;
      break;
    }
    const kept = within(step, room);
    resolution.push(kept);
    room -= kept.length;
  }
  return { record: { ...record, subject, inquiry, resolution }, cut };
}

/** `text` cut to at most `limit` characters (the mark included), where a reader expects a cut. */
function cutMarked(text: string, limit: number): string {
  const mark = ' …';
  let end = Math.max(0, limit - mark.length);
  // Not between the halves of a surrogate pair.
  if (end > 0 && /[\uD800-\uDBFF]/.test(text[end - 1] ?? '')) end -= 1;
  // Not inside a placeholder the scrub put in (`[電話]`, `[email]`).
  const open = text.lastIndexOf('[', end - 1);
  if (open >= 0 && end - open < 24 && text.indexOf(']', open) >= end) end = open;
  // At a line break in the last 200 characters, else a space, if there is one.
  const near = (at: number) => at > 0 && at > end - 200;
  const lineEnd = text.lastIndexOf('\n', end);
  const space = text.lastIndexOf(' ', end);
  if (near(lineEnd)) end = lineEnd;
  else if (near(space)) end = space;
  return `${text.slice(0, end).trimEnd()}${mark}`;
}

/**
 * A source's category as a ticket may carry it (`sanitizeTicketCategory`, the knowledge form's
 * rule): characters outside the set become spaces and what cannot start a category is dropped
 * from its start — `Software > Office` → `Software Office`, `=HYPERLINK("…")` loses its `=` —
 * and a category that still does not fit is `uncategorized`.
 */
function safeCategory(category: string): string {
  const spaced = category
    .normalize('NFKC')
    .replace(/[^\p{L}\p{M}\p{N} _./&()+・:-]+/gu, ' ')
    .replace(/^[^\p{L}\p{M}\p{N}]+/u, '')
    .replace(/\s+/gu, ' ')
    .trim();
  const fitted = [...spaced].slice(0, MAX_CATEGORY_LENGTH).join('').trim();
  return sanitizeTicketCategory(fitted) ?? UNCATEGORIZED;
}
