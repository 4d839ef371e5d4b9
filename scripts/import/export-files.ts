import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { JSONParser } from '@streamparser/json';

/**
 * Reading export files without holding them: the files an export path names, the records of a
 * JSON page (`{"result":[…]}`, `{"issues":[…]}`, `{"tickets":[…], "users":[…]}`) one at a time
 * through `@streamparser/json`, the rows of an RFC 4180 CSV file and the lines of a JSON Lines
 * file. A ~500 MB page file streams in 64 KB chunks, so memory holds a chunk and the records it
 * completes, never the file.
 */

/** A problem with the export as a whole (a missing file, JSON that does not parse): nothing is written. */
export class ExportFileError extends Error {
  override readonly name = 'ExportFileError';
}

/** One record of an export file, with where it came from (for messages naming the record). */
export interface ExportRecord {
  /** The file, relative to the current directory. */
  readonly file: string;
  /** 1-based position of the record in its file (for CSV: the data row, header excluded). */
  readonly recordNumber: number;
  readonly value: unknown;
  /** For JSON pages: the top-level key the record is listed under (`result`, `tickets`, `users`). */
  readonly listedUnder?: string;
}

/**
 * The files an export path names: the file itself, or every file under a directory (sorted, so
 * page files `page-1.json … page-10.json` come in a stable order) whose name ends in one of
 * `extensions`.
 */
export function listExportFiles(paths: readonly string[], extensions: readonly string[]): string[] {
  const files: string[] = [];
  for (const path of paths) {
    if (!existsSync(path)) throw new ExportFileError(`${path}: no such file or directory`);
    if (statSync(path).isDirectory()) {
      const found = walk(path).filter((file) =>
        extensions.some((extension) => file.toLowerCase().endsWith(extension)),
      );
      if (found.length === 0) {
        throw new ExportFileError(`${path}: no ${extensions.join(' or ')} files in this directory`);
      }
      files.push(...found);
    } else {
      files.push(path);
    }
  }
  return files;
}

function walk(directory: string): string[] {
  const entries = readdirSync(directory, { withFileTypes: true }).sort((a, b) =>
    a.name.localeCompare(b.name, 'en', { numeric: true }),
  );
  return entries.flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return walk(path);
    return entry.isFile() ? [path] : [];
  });
}

/** Bytes of `files` together: what the progress line's ETA is measured against. */
export function totalBytes(files: readonly string[]): number {
  return files.reduce((sum, file) => sum + statSync(file).size, 0);
}

/** Counts bytes as the readers consume them, for the progress line. */
export interface ByteMeter {
  bytesRead: number;
}

/**
 * The elements of the top-level arrays `keys` of a JSON file (`$.result.*`), in file order.
 * A file that is not JSON, or has none of the keys, is an `ExportFileError`.
 */
export async function* readJsonPageRecords(
  file: string,
  keys: readonly string[],
  meter?: ByteMeter,
): AsyncGenerator<ExportRecord> {
  const parser = new JSONParser({ paths: keys.map((key) => `$.${key}.*`), keepStack: false });
  const completed: ExportRecord[] = [];
  const counts = new Map<string, number>();
  let parseError: Error | undefined;
  let topLevelSeen = false;
  parser.onValue = ({ value, stack }) => {
    const listedUnder = String(stack[1]?.key ?? '');
    const recordNumber = (counts.get(listedUnder) ?? 0) + 1;
    counts.set(listedUnder, recordNumber);
    completed.push({ file: displayName(file), recordNumber, value, listedUnder });
  };
  parser.onToken = () => {
    topLevelSeen = true;
  };
  parser.onError = (error) => {
    parseError ??= error;
  };
  const stream = createReadStream(file, { highWaterMark: 64 * 1024 });
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (meter) meter.bytesRead += chunk.length;
      if (!parseError) parser.write(chunk);
      if (parseError) break;
      yield* completed.splice(0);
    }
    if (!parseError && !parser.isEnded) parser.end();
  } finally {
    stream.destroy();
  }
  if (parseError || !topLevelSeen) {
    const position = [...counts.values()].reduce((sum, count) => sum + count, 0);
    throw new ExportFileError(
      `${displayName(file)}: not valid JSON after record ${position} (${parseError?.message ?? 'empty file'})`,
    );
  }
  yield* completed.splice(0);
  if (counts.size === 0) {
    // An empty page (`{"result": []}`) is fine; a file without any of the keys is another export.
    const head = await readHead(file);
    if (!keys.some((key) => head.includes(`"${key}"`))) {
      throw new ExportFileError(
        `${displayName(file)}: has no ${keys.map((key) => `"${key}"`).join(' or ')} list; ` +
          'is it the right export?',
      );
    }
  }
}

async function readHead(file: string): Promise<string> {
  const stream = createReadStream(file, { start: 0, end: 4095, encoding: 'utf8' });
  let text = '';
  for await (const chunk of stream) text += chunk;
  return text;
}

/** The rows of a JSON Lines file as records; a line that is not JSON is a malformed record, not fatal. */
export async function* readJsonLinesRecords(
  file: string,
  meter?: ByteMeter,
): AsyncGenerator<ExportRecord | MalformedExportRecord> {
  let recordNumber = 0;
  for await (const line of readLines(file, meter)) {
    if (line.trim() === '') continue;
    recordNumber += 1;
    try {
      yield { file: displayName(file), recordNumber, value: JSON.parse(line) };
    } catch (error) {
      yield {
        file: displayName(file),
        recordNumber,
        malformed: `not a JSON value (${(error as Error).message})`,
      };
    }
  }
}

/** A record the reader could not read; the import reports it and goes on (or stops with `--strict`). */
export interface MalformedExportRecord {
  readonly file: string;
  readonly recordNumber: number;
  readonly malformed: string;
}

async function* readLines(file: string, meter?: ByteMeter): AsyncGenerator<string> {
  let rest = '';
  const stream = createReadStream(file, { highWaterMark: 64 * 1024 });
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (meter) meter.bytesRead += chunk.length;
    const text = rest + decoder.decode(chunk, { stream: true });
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) yield line.endsWith('\r') ? line.slice(0, -1) : line;
  }
  rest += decoder.decode();
  if (rest !== '') yield rest;
}

/**
 * The rows of a CSV file (RFC 4180: comma-separated, fields in double quotes may hold commas,
 * line breaks and `""` for a quote; CRLF or LF line ends; a UTF-8 byte-order mark is dropped,
 * as ServiceNow and Excel write one) as objects keyed by the header row. A row with a different
 * number of fields than the header is a malformed record.
 */
export async function* readCsvRecords(
  file: string,
  meter?: ByteMeter,
): AsyncGenerator<ExportRecord | MalformedExportRecord> {
  let header: string[] | undefined;
  let recordNumber = 0;
  for await (const row of readCsvRows(file, meter)) {
    if (!header) {
      header = row.map((name, index) => (index === 0 ? name.replace(/^\uFEFF/, '') : name).trim());
      continue;
    }
    if (row.length === 1 && row[0] === '') continue;
    recordNumber += 1;
    if (row.length !== header.length) {
      yield {
        file: displayName(file),
        recordNumber,
        malformed: `has ${row.length} fields, the header has ${header.length}`,
      };
      continue;
    }
    const value: Record<string, string> = {};
    header.forEach((name, index) => {
      value[name] = row[index] ?? '';
    });
    yield { file: displayName(file), recordNumber, value };
  }
  if (!header) throw new ExportFileError(`${displayName(file)}: empty CSV file (no header row)`);
}

/** RFC 4180 rows, streamed: a quoted field may span chunks and lines. */
export async function* readCsvRows(file: string, meter?: ByteMeter): AsyncGenerator<string[]> {
  const stream = createReadStream(file, { highWaterMark: 64 * 1024 });
  const decoder = new TextDecoder('utf-8');
  const parser = createCsvRowParser();
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (meter) meter.bytesRead += chunk.length;
    yield* parser.push(decoder.decode(chunk, { stream: true }));
  }
  yield* parser.push(decoder.decode());
  const last = parser.end();
  if (last === 'unterminated') {
    throw new ExportFileError(`${displayName(file)}: a quoted field is never closed`);
  }
  if (last) yield last;
}

/** The CSV state machine, fed text in pieces (exported for its tests). */
export function createCsvRowParser() {
  let field = '';
  let row: string[] = [];
  let inQuotes = false;
  // After a closing quote we must see `"` (an escaped quote), a comma or a line end.
  let quoteJustClosed = false;
  let pendingCarriageReturn = false;
  let rowHasContent = false;
  return {
    push(text: string): string[][] {
      const rows: string[][] = [];
      for (let index = 0; index < text.length; index += 1) {
        const character = text[index] as string;
        if (pendingCarriageReturn) {
          pendingCarriageReturn = false;
          if (character === '\n') continue;
        }
        if (inQuotes) {
          if (character === '"') {
            inQuotes = false;
            quoteJustClosed = true;
          } else {
            field += character;
          }
          continue;
        }
        if (character === '"') {
          if (quoteJustClosed) field += '"';
          inQuotes = true;
          quoteJustClosed = false;
          rowHasContent = true;
          continue;
        }
        quoteJustClosed = false;
        if (character === ',') {
          row.push(field);
          field = '';
          rowHasContent = true;
        } else if (character === '\n' || character === '\r') {
          row.push(field);
          rows.push(row);
          row = [];
          field = '';
          rowHasContent = false;
          pendingCarriageReturn = character === '\r';
        } else {
          field += character;
          rowHasContent = true;
        }
      }
      return rows;
    },
    /** The last row when the file does not end in a line break; `unterminated` for an open quote. */
    end(): string[] | 'unterminated' | undefined {
      if (inQuotes) return 'unterminated';
      if (!rowHasContent && field === '' && row.length === 0) return undefined;
      row.push(field);
      return row;
    },
  };
}

function displayName(file: string): string {
  const name = relative(process.cwd(), file);
  return name.startsWith('..') ? file : name;
}
