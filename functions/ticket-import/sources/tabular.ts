import * as z from 'zod';
import type { Person } from '../../knowledge/personal-data-scrub.js';
import {
  type ByteMeter,
  ENCODING_LABELS,
  ExportFileError,
  type ExportRecord,
  encodingOfTextFile,
  listExportFiles,
  type MalformedExportRecord,
  readCsvRecords,
  readJsonLinesRecords,
  readUtf8TextFile,
} from '../export-files.js';
import {
  dayOf,
  type ImportedRecord,
  MalformedRecordError,
  personOf,
  type SourceItem,
  stepsOf,
} from '../imported-ticket.js';
import { htmlToText } from '../staff-text.js';
import type { SourceOptions } from './source-options.js';

/**
 * Any other export — a CSV file (RFC 4180, header row) or JSON Lines (one object per line) —
 * read through a mapping file that names the columns (for JSON Lines: keys, dotted for nested
 * ones) of the ticket's fields. The mapping is validated with zod; a mapping that names a column
 * the CSV header lacks stops the import before anything is written.
 */

const columns = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]);

/** The mapping file (`--mapping mapping.json`); docs/deploy.md has its reference. */
export const tabularMappingSchema = z
  .object({
    /** The ticket number column (written as the ticket id as it is). */
    number: z.string().min(1),
    subject: z.string().min(1),
    /** One column or several, joined with blank lines. */
    inquiry: columns,
    /** Each column's text split into steps at blank lines, in the order listed. */
    resolution: columns,
    category: z.string().min(1).optional(),
    /** Category when the column is missing or empty. */
    defaultCategory: z.string().min(1).default('uncategorized'),
    status: z
      .object({
        column: z.string().min(1),
        /** Values (case-insensitive) that count as resolved or closed. */
        resolved: z.array(z.string()).min(1),
      })
      .strict()
      .optional(),
    duplicate: z
      .object({ column: z.string().min(1), values: z.array(z.string()).min(1) })
      .strict()
      .optional(),
    openedAt: z.string().min(1).optional(),
    resolvedAt: z.string().min(1).optional(),
    /** Person fields: each entry one person, from a name column and/or an e-mail or user-id column. */
    people: z
      .array(
        z.union([
          z.string().min(1),
          z
            .object({
              name: z.string().min(1).optional(),
              email: z.string().min(1).optional(),
              userId: z.string().min(1).optional(),
            })
            .strict()
            .refine((person) => person.name || person.email || person.userId, {
              message: 'a person needs name, email or userId',
            }),
        ]),
      )
      .default([]),
    /** Text columns holding HTML, rendered as text. */
    html: z.boolean().default(false),
    /** `column=value` rules that mark a ticket restricted, as `--restricted-when`. */
    restrictedWhen: z.array(z.string().regex(/^[^=]+=.*$/, 'a rule is column=value')).default([]),
  })
  .strict();
export type TabularMapping = z.infer<typeof tabularMappingSchema>;

/** Reads and validates a mapping file; every problem is named with its path in the file. */
export function readTabularMapping(file: string): TabularMapping {
  const text = readUtf8TextFile(`mapping ${file}`, file);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ExportFileError(`mapping ${file}: ${(error as Error).message}`);
  }
  const parsed = tabularMappingSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `  ${issue.path.join('.') || '(top level)'}: ${issue.message}`,
    );
    throw new ExportFileError(`mapping ${file} is not valid:\n${problems.join('\n')}`);
  }
  return parsed.data;
}

/** Every column a mapping names (checked against the CSV header). */
function mappedColumns(mapping: TabularMapping): string[] {
  const list = (value: string | string[] | undefined) =>
    value === undefined ? [] : Array.isArray(value) ? value : [value];
  return [
    mapping.number,
    mapping.subject,
    ...list(mapping.inquiry),
    ...list(mapping.resolution),
    ...list(mapping.category),
    ...list(mapping.status?.column),
    ...list(mapping.duplicate?.column),
    ...list(mapping.openedAt),
    ...list(mapping.resolvedAt),
    ...mapping.people.flatMap((person) =>
      typeof person === 'string'
        ? [person]
        : [person.name, person.email, person.userId].filter((c): c is string => !!c),
    ),
  ];
}

function valueAt(record: Readonly<Record<string, unknown>>, column: string): unknown {
  if (column in record) return record[column];
  // JSON Lines: a dotted path into nested objects.
  let value: unknown = record;
  for (const part of column.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function textAt(record: Readonly<Record<string, unknown>>, column: string): string {
  const value = valueAt(record, column);
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value.trim();
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(String).join(', ');
  throw new MalformedRecordError(`column ${column} holds an object, not text`);
}

/** Normalizes one row with the mapping. */
export function normalizeTabularRecord(value: unknown, mapping: TabularMapping): ImportedRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new MalformedRecordError('is not an object');
  }
  const record = value as Readonly<Record<string, unknown>>;
  const text = (column: string) => {
    const raw = textAt(record, column);
    return mapping.html ? htmlToText(raw) : raw;
  };
  const texts = (spec: string | string[]) => (Array.isArray(spec) ? spec : [spec]).map(text);
  const number = textAt(record, mapping.number);
  if (!number) throw new MalformedRecordError(`has no ${mapping.number}`);
  const people: Person[] = [];
  for (const spec of mapping.people) {
    const person =
      typeof spec === 'string'
        ? personOf(
            /@/.test(textAt(record, spec))
              ? { emails: [textAt(record, spec)] }
              : { names: [textAt(record, spec)] },
          )
        : personOf({
            names: spec.name ? [textAt(record, spec.name)] : [],
            emails: spec.email ? [textAt(record, spec.email)] : [],
            userIds: spec.userId ? [textAt(record, spec.userId)] : [],
          });
    if (person) people.push(person);
  }
  const matches = (column: string, values: readonly string[]) => {
    const actual = textAt(record, column).toLowerCase();
    return values.some((candidate) => candidate.toLowerCase() === actual);
  };
  const subject = text(mapping.subject).split('\n')[0]?.trim() ?? '';
  const fields: Record<string, string[]> = {};
  for (const [key, raw] of Object.entries(record)) {
    if (raw === null || typeof raw !== 'object') fields[key] = [raw === null ? '' : String(raw)];
    else if (Array.isArray(raw)) fields[key] = raw.map(String);
  }
  return {
    number,
    subject: subject || number,
    inquiry: texts(mapping.inquiry).filter(Boolean).join('\n\n') || subject,
    resolution: texts(mapping.resolution).flatMap(stepsOf),
    category: (mapping.category && textAt(record, mapping.category)) || mapping.defaultCategory,
    // Without a status column every exported row counts as resolved (an export of closed tickets).
    resolved: mapping.status ? matches(mapping.status.column, mapping.status.resolved) : true,
    duplicate: mapping.duplicate
      ? matches(mapping.duplicate.column, mapping.duplicate.values)
      : false,
    openedOn: mapping.openedAt ? dayOf(textAt(record, mapping.openedAt)) : undefined,
    resolvedOn: mapping.resolvedAt ? dayOf(textAt(record, mapping.resolvedAt)) : undefined,
    people,
    fields,
  };
}

/** Reads CSV (`.csv`) or JSON Lines (`.jsonl`, `.ndjson`) files with a mapping. */
export async function* readTabularExport(
  paths: readonly string[],
  format: 'csv' | 'jsonl',
  mapping: TabularMapping,
  options: Pick<SourceOptions, 'encoding'>,
  meter?: ByteMeter,
): AsyncGenerator<SourceItem> {
  const extensions = format === 'csv' ? ['.csv'] : ['.jsonl', '.ndjson'];
  for (const file of listExportFiles(paths, extensions)) {
    const encoding = encodingOfTextFile(file, options.encoding);
    const records: AsyncIterable<ExportRecord | MalformedExportRecord> =
      format === 'csv'
        ? readCsvRecords(file, encoding, meter)
        : readJsonLinesRecords(file, encoding, meter);
    let headerChecked = format !== 'csv';
    for await (const item of records) {
      if ('malformed' in item) {
        yield item;
        continue;
      }
      if (!headerChecked) {
        const header = Object.keys(item.value as object);
        const missing = mappedColumns(mapping).filter((column) => !header.includes(column));
        if (missing.length > 0) {
          throw new ExportFileError(
            `${item.file}: the mapping names ${missing.map((c) => JSON.stringify(c)).join(', ')}, ` +
              `which the header does not have (it has ${header.map((c) => JSON.stringify(c)).join(', ')}, ` +
              `read as ${ENCODING_LABELS[encoding]})`,
          );
        }
        headerChecked = true;
      }
      try {
        yield { ...item, record: normalizeTabularRecord(item.value, mapping) };
      } catch (error) {
        if (!(error instanceof MalformedRecordError)) throw error;
        yield { file: item.file, recordNumber: item.recordNumber, malformed: error.message };
      }
    }
  }
}
