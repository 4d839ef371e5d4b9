import { createHash } from 'node:crypto';
import { MAX_CATEGORY_LENGTH, sanitizeTicketCategory } from '../contract/knowledge.js';
import { type PersonNameAnalyzer, peopleFromNames } from '../knowledge/person-name-analyzer.js';
import {
  languageOf,
  type Person,
  peopleNamedIn,
  type ScrubSettings,
  scrubPersonalData,
} from '../knowledge/personal-data-scrub.js';
import { type ImportedTicketSource, renderTicketDocuments } from '../knowledge/ticket-document.js';
import {
  type ImportedRecord,
  type SkipReason,
  SOURCE_LABELS,
  type SourceName,
} from './imported-ticket.js';

/**
 * One normalized record → its ticket documents, the same for every input (export files or a
 * system's API): the skip rules, the `--restricted-when` rules, the personal-data scrub with the
 * record's people, the size bounds, the category's safe character set, and the content hash the
 * manifest keeps. runImport (files) and syncPage (functions/ticket-sync) both use it, so a pull
 * writes byte for byte what a file import of the same records writes.
 */

/** What converting a record needs besides the record. */
export interface ConversionSettings {
  readonly source: SourceName;
  readonly scrubSettings?: ScrubSettings;
}

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

/** Bad command-line input or settings: the message says what to change. */
export class ImportUsageError extends Error {
  override readonly name = 'ImportUsageError';
}

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

export function skipReasonOf(
  record: ImportedRecord,
  accepted: Readonly<Record<string, string>>,
): SkipReason | undefined {
  if (record.duplicate) return 'duplicate';
  if (!record.resolved) return 'notResolved';
  if (record.resolution.every((step) => step.trim() === '')) return 'noResolutionText';
  if (record.number.trim() in accepted) return 'repeatedNumber';
  return undefined;
}

export function matchesRule(record: ImportedRecord, rule: RestrictionRule): boolean {
  const values =
    rule.field === 'category'
      ? [record.category, ...(record.fields.category ?? [])]
      : record.fields[rule.field];
  return (values ?? []).some((value) => value.trim().toLowerCase() === rule.value);
}

/**
 * Scrubs the record's text with its people and renders the ticket documents, its text cut to
 * {@link MAX_IMPORTED_TEXT} (`cut`) and its category to the safe character set (`categoryChanged`).
 */
export function renderRecord(
  issueId: string,
  unbounded: ImportedRecord,
  restricted: boolean,
  options: ConversionSettings,
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
      restricted,
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

/** The content hash the manifest records for a ticket's two files. */
export function ticketContentHash(files: {
  readonly document: string;
  readonly sidecar: string;
}): string {
  return createHash('sha256')
    .update(files.document)
    .update('\0')
    .update(files.sidecar)
    .digest('hex');
}
