import type { Person } from '../../knowledge/personal-data-scrub.js';
import {
  type ByteMeter,
  type ExportRecord,
  encodingOfTextFile,
  listExportFiles,
  type MalformedExportRecord,
  readCsvRecords,
  readJsonPageRecords,
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
 * ServiceNow: Table API responses (`GET /api/now/table/incident` or `/sc_req_item`, one or many
 * page files `{"result":[…]}`) in any `sysparm_display_value` mode — `false` (values; reference
 * fields `{link, value}`), `true` (display strings) or `all` (`{display_value, value}` per field)
 * — and list-view CSV exports (field names as headers, display values). The resolution is the
 * close notes; journal entries (`comments`, `work_notes`, `comments_and_work_notes`) are added
 * in the order they were written when `--comments` asks for them, and their authors always
 * count as people of the record.
 */

/** A field's value and display value, whatever mode the export was made in. */
interface FieldValue {
  readonly value: string;
  readonly display: string;
}

function fieldOf(record: Readonly<Record<string, unknown>>, name: string): FieldValue {
  const raw = record[name];
  if (raw === undefined || raw === null) return { value: '', display: '' };
  if (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') {
    // false mode gives values, true mode display values: a bare string may be either.
    return { value: String(raw), display: String(raw) };
  }
  if (typeof raw === 'object') {
    const object = raw as { value?: unknown; display_value?: unknown };
    const value = object.value === undefined || object.value === null ? '' : String(object.value);
    const display =
      object.display_value === undefined || object.display_value === null
        ? value
        : String(object.display_value);
    return { value, display };
  }
  throw new MalformedRecordError(`field ${name} is neither a string nor a {value} object`);
}

// Incident (and problem/change) states 6 Resolved / 7 Closed; sc_req_item 3 Closed Complete.
// Display values in English and the Japanese UI.
const RESOLVED_INCIDENT_VALUES = new Set(['6', '7']);
const RESOLVED_DISPLAY = /^(resolved|closed|closed complete|解決済み?|クローズ(済み)?|完了)$/i;

function isResolved(record: Readonly<Record<string, unknown>>, number: string): boolean {
  const isRequestedItem =
    /^RITM/i.test(number) || fieldOf(record, 'sys_class_name').value === 'sc_req_item';
  for (const name of ['incident_state', 'state']) {
    const { value, display } = fieldOf(record, name);
    if (value === '' && display === '') continue;
    if (isRequestedItem ? value === '3' : RESOLVED_INCIDENT_VALUES.has(value)) return true;
    return RESOLVED_DISPLAY.test(display.trim());
  }
  return false;
}

/** One entry of a journal field. */
interface JournalEntry {
  readonly at: string;
  readonly author: string;
  readonly kind: 'comments' | 'work_notes';
  readonly text: string;
}

// "2024-01-09 10:12:33 - 山田 太郎 (Work notes)" — the header ServiceNow writes before each entry;
// "Additional comments" for `comments`; the Japanese UI writes 作業メモ / 追加コメント.
const JOURNAL_HEADER =
  /^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) - (.+?) \((Work notes|Additional comments|Comments|作業メモ|追加コメント|コメント)\)\s*$/gm;

/** Parses a journal field's text into entries, oldest first (ServiceNow lists newest first). */
export function parseJournal(text: string): JournalEntry[] {
  const normalized = text.replace(/\r\n?/g, '\n');
  const headers = [...normalized.matchAll(JOURNAL_HEADER)];
  const entries = headers.map((header, index) => {
    const start = (header.index ?? 0) + header[0].length;
    const end = headers[index + 1]?.index ?? normalized.length;
    const label = header[3] ?? '';
    return {
      at: header[1] ?? '',
      author: (header[2] ?? '').trim(),
      kind: /Work notes|作業メモ/.test(label) ? ('work_notes' as const) : ('comments' as const),
      text: normalized.slice(start, end).trim(),
    };
  });
  // Stable sort on the timestamp: entries of the same second keep their listed order reversed.
  // The timestamps are all `YYYY-MM-DD hh:mm:ss` in ASCII digits, so comparing code units orders
  // them as localeCompare did, without a collator.
  return entries
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) =>
      a.entry.at < b.entry.at ? -1 : a.entry.at > b.entry.at ? 1 : b.index - a.index,
    )
    .map(({ entry }) => entry);
}

const SYS_ID = /^[0-9a-f]{32}$/;

const PERSON_FIELDS = [
  'caller_id',
  'requested_for',
  'opened_by',
  'assigned_to',
  'resolved_by',
  'closed_by',
] as const;

/** Normalizes one Table API or CSV record. */
export function normalizeServiceNowRecord(
  record: unknown,
  options: Pick<SourceOptions, 'comments'>,
): ImportedRecord {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    throw new MalformedRecordError('is not an object');
  }
  const fields = record as Readonly<Record<string, unknown>>;
  const number = fieldOf(fields, 'number').display.trim() || fieldOf(fields, 'number').value.trim();
  if (!number) throw new MalformedRecordError('has no number');

  const people: Person[] = [];
  for (const name of PERSON_FIELDS) {
    const { value, display } = fieldOf(fields, name);
    // In false mode a reference is a sys_id; in all mode we have both the name and the sys_id.
    const isSysId = SYS_ID.test(display);
    const person = personOf({
      names: isSysId ? [] : [display],
      userIds: value !== display || isSysId ? [value] : [],
    });
    if (person) people.push(person);
  }
  // comments_and_work_notes already holds both journals; otherwise join the two.
  const combined = fieldOf(fields, 'comments_and_work_notes').display;
  const entries = parseJournal(
    combined.trim() !== ''
      ? combined
      : `${fieldOf(fields, 'comments').display}\n\n${fieldOf(fields, 'work_notes').display}`,
  );
  for (const author of new Set(entries.map((entry) => entry.author))) {
    const person = personOf({ names: [author] });
    if (person) people.push(person);
  }

  const callerNames = new Set(
    ['caller_id', 'requested_for'].map((name) => fieldOf(fields, name).display).filter(Boolean),
  );
  const journalSteps = entries
    .filter(
      (entry) =>
        options.comments === 'all' || (options.comments === 'public' && entry.kind === 'comments'),
    )
    .filter((entry) => !callerNames.has(entry.author))
    .map((entry) => entry.text)
    .filter((entry) => entry !== '');

  const subject =
    htmlAware(fieldOf(fields, 'short_description').display).split('\n')[0]?.trim() ?? '';
  const closeCode = fieldOf(fields, 'close_code').display;
  // A reference in false mode is only a sys_id, which is no category to show.
  const category =
    [fieldOf(fields, 'category').display, fieldOf(fields, 'cat_item').display]
      .map((value) => value.trim())
      .find((value) => value !== '' && !SYS_ID.test(value)) ?? 'uncategorized';
  const flat: Record<string, string[]> = {};
  for (const [name, raw] of Object.entries(fields)) {
    if (raw !== null && typeof raw === 'object' && !('value' in raw) && !('display_value' in raw))
      continue;
    const { value, display } = fieldOf(fields, name);
    flat[name] = value === display ? [value] : [value, display];
  }
  return {
    number,
    subject: subject || number,
    inquiry: htmlAware(fieldOf(fields, 'description').display) || subject,
    resolution: [...stepsOf(htmlAware(fieldOf(fields, 'close_notes').display)), ...journalSteps],
    category,
    resolved: isResolved(fields, number),
    duplicate: /duplicate|重複/i.test(closeCode) || fieldOf(fields, 'duplicate_of').value !== '',
    openedOn: dayOf(fieldOf(fields, 'opened_at').value || fieldOf(fields, 'opened_at').display),
    resolvedOn: dayOf(
      fieldOf(fields, 'resolved_at').value ||
        fieldOf(fields, 'closed_at').value ||
        fieldOf(fields, 'resolved_at').display,
    ),
    people,
    fields: flat,
  };
}

/** HTML fields (a description pasted from mail, a `[code]` journal entry) as text; plain text as it is. */
function htmlAware(text: string): string {
  const unwrapped = text.replace(/\[code\]([\s\S]*?)\[\/code\]/g, (_whole, html: string) => html);
  return /<\/?(p|div|br|span|li|table)\b/i.test(unwrapped)
    ? htmlToText(unwrapped)
    : unwrapped.trim();
}

/** Reads ServiceNow export files (`.json` Table API pages, `.csv` list exports). */
export async function* readServiceNowExport(
  paths: readonly string[],
  options: SourceOptions,
  meter?: ByteMeter,
): AsyncGenerator<SourceItem> {
  for (const file of listExportFiles(paths, ['.json', '.csv'])) {
    const records: AsyncIterable<ExportRecord | MalformedExportRecord> = file
      .toLowerCase()
      .endsWith('.csv')
      ? readCsvRecords(file, encodingOfTextFile(file, options.encoding), meter)
      : readJsonPageRecords(file, ['result'], meter);
    for await (const item of records) {
      if ('malformed' in item) {
        yield item;
        continue;
      }
      try {
        yield { ...item, record: normalizeServiceNowRecord(item.value, options) };
      } catch (error) {
        if (!(error instanceof MalformedRecordError)) throw error;
        yield { file: item.file, recordNumber: item.recordNumber, malformed: error.message };
      }
    }
  }
}
