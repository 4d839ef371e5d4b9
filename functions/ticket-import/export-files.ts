import { isUtf8 } from 'node:buffer';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  statSync,
} from 'node:fs';
import { join, relative } from 'node:path';

/**
 * Reading export files without holding them: the files an export path names, the records of a
 * JSON page (`{"result":[…]}`, `{"issues":[…]}`, `{"tickets":[…], "users":[…]}`) one at a time
 * (cut from the bytes by {@link JsonPageSplitter}, each parsed by `JSON.parse`), the rows of an RFC 4180 CSV file and the lines of a JSON Lines
 * file. A ~500 MB page file is read 1 MB at a time ({@link readChunks}), so memory holds a chunk
 * and the records it completes, never the file.
 *
 * Text is decoded strictly: a byte sequence that is not valid in the file's encoding stops the
 * import with a message naming the encoding ({@link encodingOfTextFile}), never a ticket of
 * U+FFFD. CSV and JSON Lines files are UTF-8 when they are valid UTF-8, else Shift_JIS (CP932,
 * what Excel on Japanese Windows writes) when they are valid Shift_JIS, or what `--encoding`
 * names; a byte-order mark decides before either. JSON pages are UTF-8 (RFC 8259) and nothing else.
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

/** What `--encoding` may name: the encodings a CSV or JSON Lines export comes in. */
export const TEXT_ENCODINGS = ['utf-8', 'shift_jis'] as const;
export type TextEncodingName = (typeof TEXT_ENCODINGS)[number];

/** How a text file is decoded: a name `--encoding` takes, or UTF-16 that its byte-order mark names. */
export type FileEncoding = TextEncodingName | 'utf-16le' | 'utf-16be';

/** The encodings' names as messages and the report write them. */
export const ENCODING_LABELS: Readonly<Record<FileEncoding, string>> = {
  'utf-8': 'UTF-8',
  shift_jis: 'Shift_JIS',
  'utf-16le': 'UTF-16LE',
  'utf-16be': 'UTF-16BE',
};

/**
 * How to decode a CSV or JSON Lines file. A byte-order mark decides first, as the WHATWG
 * Encoding Standard's decode does (UTF-8 `EF BB BF`, as Excel's "CSV UTF-8" writes; UTF-16 `FF FE`
 * or `FE FF`), even over `chosen`: the mark is in the bytes, the option is a guess about them.
 * Otherwise `chosen` (`--encoding`); otherwise UTF-8 if the whole file is valid UTF-8, else
 * Shift_JIS if the whole file is valid Shift_JIS. The check reads the file once more, without
 * holding it. Shift_JIS text is almost never valid UTF-8 (its kana and kanji bytes are UTF-8
 * continuation bytes without a lead), so the order decides nothing a person would notice. A file
 * that is neither is refused, naming both.
 */
export function encodingOfTextFile(
  file: string,
  chosen: TextEncodingName | undefined,
): FileEncoding {
  const marked = byteOrderMarkOf(file);
  if (marked) return marked;
  if (chosen) return chosen;
  if (decodesAs(file, 'utf-8')) return 'utf-8';
  if (decodesAs(file, 'shift_jis')) return 'shift_jis';
  throw new ExportFileError(
    `${displayName(file)}: is neither UTF-8 nor Shift_JIS text; save it as "CSV UTF-8" ` +
      'or name its encoding with --encoding utf-8|shift_jis',
  );
}

function byteOrderMarkOf(file: string): FileEncoding | undefined {
  const descriptor = openSync(file, 'r');
  const head = Buffer.alloc(3);
  let length: number;
  try {
    length = readSync(descriptor, head, 0, 3, 0);
  } finally {
    closeSync(descriptor);
  }
  if (length >= 3 && head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return 'utf-8';
  if (length >= 2 && head[0] === 0xff && head[1] === 0xfe) return 'utf-16le';
  if (length >= 2 && head[0] === 0xfe && head[1] === 0xff) return 'utf-16be';
  return undefined;
}

/** Whether the whole file decodes as `encoding` without an invalid byte. */
function decodesAs(file: string, encoding: TextEncodingName): boolean {
  if (encoding === 'utf-8') return isUtf8File(file);
  const decoder = new TextDecoder(encoding, { fatal: true });
  try {
    for (const chunk of readChunks(file)) decoder.decode(chunk, { stream: true });
    decoder.decode();
    return true;
  } catch (error) {
    if (error instanceof TypeError) return false;
    throw error;
  }
}

/**
 * Whether the whole file is valid UTF-8, by `isUtf8` (native, many times faster than decoding):
 * each chunk is checked up to its last complete sequence, the bytes of a sequence cut by the
 * chunk's end go with the next.
 */
function isUtf8File(file: string): boolean {
  let carried = Buffer.alloc(0);
  for (const chunk of readChunks(file)) {
    const bytes = carried.length > 0 ? Buffer.concat([carried, chunk]) : chunk;
    const end = completeSequencesEnd(bytes);
    if (!isUtf8(bytes.subarray(0, end))) return false;
    carried = Buffer.from(bytes.subarray(end));
  }
  return carried.length === 0;
}

/** Where the last complete UTF-8 sequence of `bytes` ends (a lead byte in the last three starts one). */
function completeSequencesEnd(bytes: Buffer): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back] as number;
    if (byte < 0x80) return bytes.length;
    if (byte >= 0xc0) {
      const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
      return length > back ? bytes.length - back : bytes.length;
    }
  }
  return bytes.length;
}

/**
 * A strict decoder of a file's text, chunk by chunk: an invalid byte is an `ExportFileError`
 * naming the encoding and the line of the byte, not U+FFFD. The UTF-8 and UTF-16 byte-order
 * mark is dropped.
 */
function strictDecoder(file: string, encoding: FileEncoding) {
  const decoder = new TextDecoder(encoding, { fatal: true });
  let lines = 0;
  const newlinesIn = (text: string) => {
    let count = 0;
    for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) count += 1;
    return count;
  };
  const decode = (chunk: Buffer | undefined): string => {
    try {
      const text = chunk ? decoder.decode(chunk, { stream: true }) : decoder.decode();
      lines += newlinesIn(text);
      return text;
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      // Where in the chunk: the same bytes decoded leniently, up to the first replacement.
      const lenient = chunk ? new TextDecoder(encoding).decode(chunk) : '';
      const invalidAt = lenient.indexOf('\uFFFD');
      const line = lines + 1 + (invalidAt > 0 ? newlinesIn(lenient.slice(0, invalidAt)) : 0);
      throw new ExportFileError(
        `${displayName(file)}: is not valid ${ENCODING_LABELS[encoding]} text (line ${line}); ` +
          'name its encoding with --encoding utf-8|shift_jis',
      );
    }
  };
  return { decode: (chunk: Buffer) => decode(chunk), end: () => decode(undefined) };
}

/**
 * A small UTF-8 text file (a mapping, scrub settings), refused when it is not UTF-8 rather than
 * read with U+FFFD in a column name or a pattern; a byte-order mark is dropped. `name` is how
 * messages name it (`mapping mapping.json`).
 */
export function readUtf8TextFile(name: string, file: string): string {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new ExportFileError(`${name}: ${(error as Error).message}`);
  }
  if (!isUtf8(bytes)) throw new ExportFileError(`${name}: is not UTF-8 text; save it as UTF-8`);
  return bytes.toString('utf8').replace(/^\uFEFF/, '');
}

/** Bytes a reader takes from an export file at once. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The bytes of a file, up to {@link CHUNK_BYTES} at a time, in one buffer reused for every chunk:
 * a chunk is valid until the next one is asked for. Synchronous reads: nothing else runs while the
 * import reads, and on 78 MB a `createReadStream` cost 0.35–0.45 s of CPU (threadpool requests,
 * stream machinery, 64 KB at a time) against 16 ms for `readSync` (bench/README.md).
 */
function* readChunks(file: string, meter?: ByteMeter): Generator<Buffer> {
  const descriptor = openSync(file, 'r');
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  try {
    for (;;) {
      const length = readSync(descriptor, chunk, 0, CHUNK_BYTES, null);
      if (length === 0) return;
      if (meter) meter.bytesRead += length;
      yield length === CHUNK_BYTES ? chunk : chunk.subarray(0, length);
    }
  } finally {
    closeSync(descriptor);
  }
}

/** Counts bytes as the readers consume them, for the progress line. */
export interface ByteMeter {
  bytesRead: number;
}

/**
 * The elements of the top-level arrays `keys` of a JSON file (`$.result.*`), in file order.
 * A file that is not JSON, has none of the keys, or lists something other than an array under
 * one, is an `ExportFileError`.
 */
export async function* readJsonPageRecords(
  file: string,
  keys: readonly string[],
  meter?: ByteMeter,
): AsyncGenerator<ExportRecord> {
  const name = displayName(file);
  const splitter = new JsonPageSplitter(keys);
  const counts = new Map<string, number>();
  const position = () => [...counts.values()].reduce((sum, count) => sum + count, 0);
  const toRecord = (piece: ListedPiece): ExportRecord => {
    const recordNumber = (counts.get(piece.listedUnder) ?? 0) + 1;
    let value: unknown;
    try {
      value = JSON.parse(piece.text);
    } catch (error) {
      throw new ExportFileError(
        `${name}: not valid JSON after record ${position()} (${(error as Error).message})`,
      );
    }
    counts.set(piece.listedUnder, recordNumber);
    return { file: name, recordNumber, value, listedUnder: piece.listedUnder };
  };
  for (const chunk of readChunks(file, meter)) {
    let pieces: ListedPiece[];
    try {
      pieces = splitter.push(chunk);
    } catch (error) {
      throw splitError(name, position(), error);
    }
    for (const piece of pieces) yield toRecord(piece);
  }
  try {
    splitter.end();
  } catch (error) {
    throw splitError(name, position(), error);
  }
  if (!keys.some((key) => splitter.keysSeen.has(key))) {
    // An empty page (`{"result": []}`) is fine; a file without any of the keys is another export.
    throw new ExportFileError(
      `${name}: has no ${keys.map((key) => `"${key}"`).join(' or ')} list; is it the right export?`,
    );
  }
}

function splitError(name: string, position: number, error: unknown): Error {
  if (!(error instanceof JsonPageError)) return error as Error;
  return new ExportFileError(`${name}: not valid JSON after record ${position} (${error.message})`);
}

/** One element of a listed array: its JSON text, not yet parsed. */
export interface ListedPiece {
  readonly listedUnder: string;
  readonly text: string;
}

/** The page's structure is not JSON (the splitter's own check; a record's text is `JSON.parse`'s). */
export class JsonPageError extends Error {
  override readonly name = 'JsonPageError';
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

const isJsonSpace = (byte: number) =>
  byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

type SplitterState =
  | 'start' // before the page's `{`
  | 'firstKeyOrEnd' // after `{`
  | 'key' // after `,`: a key must follow
  | 'colon'
  | 'valueStart' // after `:` of a key that is not listed
  | 'listStart' // after `:` of a listed key: `[` must follow
  | 'firstElementOrEnd' // after `[`
  | 'element' // after `,` in a list: an element must follow
  | 'afterElement'
  | 'afterValue'
  | 'done'
  | Scan;
/** Inside a key string, a listed element or another top-level value. */
type Scan = 'scanKey' | 'scanElement' | 'scanValue';

/**
 * Cuts a JSON page (`{"result": [ {…}, {…} ], "other": …}`) into the texts of the elements of
 * its listed arrays, fed in chunks of bytes, so each record is parsed by `JSON.parse` on its own
 * (native: several times faster than a JavaScript tokenizer such as `@streamparser/json`, which
 * this replaced; bench/README.md, import throughput). It reads only the structure: a string is
 * skipped with `indexOf` to its closing quote, brackets are counted. The top level is checked to
 * be one object of `"key": value` pairs; a listed array's elements are handed out whole (their
 * syntax is `JSON.parse`'s to check); any other top-level value is skipped by its structure
 * without being held (a number or literal is checked), so memory is a chunk and the record being
 * cut, whatever else the page holds. Exported for its tests.
 */
export class JsonPageSplitter {
  /** The top-level keys met so far. */
  readonly keysSeen = new Set<string>();
  readonly #listed: ReadonlySet<string>;
  #buffer: Buffer = Buffer.alloc(0);
  /** Holds `#buffer` at its start. */
  #work: Buffer = Buffer.alloc(0);
  /** Next byte to look at in `#buffer` (one past its end when an escaped byte is in the next chunk). */
  #position = 0;
  #state: SplitterState = 'start';
  #key = '';
  /** Where the text being cut (key, element, scalar) starts in `#buffer`; -1 when none is held. */
  #heldFrom = -1;
  // The value being scanned.
  #begun = false;
  #depth = 0;
  #inString = false;
  #scalar = false;
  /** The next backslash at or after some position of this buffer; -2 unknown, -1 none. */
  #nextBackslash = -2;
  #atFileStart = true;

  constructor(listed: readonly string[]) {
    this.#listed = new Set(listed);
  }

  /** Feeds the next chunk (copied: the caller may reuse it); returns the elements it completed. */
  push(chunk: Buffer): ListedPiece[] {
    // The bytes still needed (a key or record cut by the chunk's end) move to the front of one
    // work buffer, reused for every chunk: no allocation, and a copy of a record, not a chunk.
    const keepFrom = Math.min(
      this.#heldFrom >= 0 ? this.#heldFrom : this.#position,
      this.#buffer.length,
    );
    const kept = this.#buffer.length - keepFrom;
    const needed = kept + chunk.length;
    if (this.#work.length < needed) {
      const work = Buffer.allocUnsafe(Math.max(needed, this.#work.length * 2));
      this.#buffer.copy(work, 0, keepFrom);
      this.#work = work;
    } else if (kept > 0) {
      this.#work.copyWithin(0, keepFrom, this.#buffer.length);
    }
    chunk.copy(this.#work, kept);
    this.#buffer = this.#work.subarray(0, needed);
    this.#position -= keepFrom;
    if (this.#heldFrom >= 0) this.#heldFrom -= keepFrom;
    this.#nextBackslash = -2;
    if (this.#atFileStart && this.#buffer.length > 0) {
      this.#atFileStart = false;
      // A UTF-8 byte-order mark, as some tools write one.
      if (this.#buffer[0] === 0xef && this.#buffer[1] === 0xbb && this.#buffer[2] === 0xbf) {
        this.#position = 3;
      }
    }
    const pieces: ListedPiece[] = [];
    this.#run(pieces);
    return pieces;
  }

  /** The file ended: it must have closed the page's object. */
  end(): void {
    if (this.#state === 'start') throw new JsonPageError('empty file');
    if (this.#state !== 'done') throw new JsonPageError('unexpected end of the file');
  }

  #run(pieces: ListedPiece[]): void {
    const buffer = this.#buffer;
    for (;;) {
      const state = this.#state;
      if (state === 'scanKey' || state === 'scanElement' || state === 'scanValue') {
        if (!this.#scan()) return;
        const text = this.#heldFrom >= 0 ? utf8Text(buffer, this.#heldFrom, this.#position) : '';
        this.#heldFrom = -1;
        if (state === 'scanKey') {
          this.#key = parseScalar(text) as string;
          this.keysSeen.add(this.#key);
          this.#state = 'colon';
        } else if (state === 'scanElement') {
          pieces.push({ listedUnder: this.#key, text });
          this.#state = 'afterElement';
        } else {
          if (text !== '') parseScalar(text); // a number, literal or string; containers are not held
          this.#state = 'afterValue';
        }
        continue;
      }
      // Every other state looks at the next byte that is not white space.
      let position = this.#position;
      while (position < buffer.length && isJsonSpace(buffer[position] as number)) position += 1;
      this.#position = position;
      if (position >= buffer.length) return;
      const byte = buffer[position] as number;
      switch (state) {
        case 'start':
          if (byte !== OPEN_BRACE) throw new JsonPageError('the page is not a JSON object');
          this.#advanceTo('firstKeyOrEnd');
          break;
        case 'firstKeyOrEnd':
        case 'key':
          if (byte === CLOSE_BRACE && state === 'firstKeyOrEnd') this.#advanceTo('done');
          else if (byte === QUOTE) this.#startScan('scanKey');
          else throw new JsonPageError('expected a key');
          break;
        case 'colon':
          if (byte !== COLON) throw new JsonPageError('expected ":" after a key');
          this.#advanceTo(this.#listed.has(this.#key) ? 'listStart' : 'valueStart');
          break;
        case 'valueStart':
          this.#startScan('scanValue');
          break;
        case 'listStart':
          if (byte !== OPEN_BRACKET) throw new JsonPageError(`"${this.#key}" is not a list`);
          this.#advanceTo('firstElementOrEnd');
          break;
        case 'firstElementOrEnd':
        case 'element':
          if (byte === CLOSE_BRACKET && state === 'firstElementOrEnd')
            this.#advanceTo('afterValue');
          else this.#startScan('scanElement');
          break;
        case 'afterElement':
          if (byte === COMMA) this.#advanceTo('element');
          else if (byte === CLOSE_BRACKET) this.#advanceTo('afterValue');
          else throw new JsonPageError('expected "," or "]" after a record');
          break;
        case 'afterValue':
          if (byte === COMMA) this.#advanceTo('key');
          else if (byte === CLOSE_BRACE) this.#advanceTo('done');
          else throw new JsonPageError('expected "," or "}" after a value');
          break;
        case 'done':
          throw new JsonPageError('text after the page');
      }
    }
  }

  /** Past the structural byte at `#position`, into `state`. */
  #advanceTo(state: SplitterState): void {
    this.#position += 1;
    this.#state = state;
  }

  #startScan(state: Scan): void {
    this.#state = state;
    this.#heldFrom = this.#position;
    this.#begun = false;
    this.#depth = 0;
    this.#inString = false;
    this.#scalar = false;
  }

  /** Scans the value at `#position` on; true when it ended (`#position` is then one past it). */
  #scan(): boolean {
    const buffer = this.#buffer;
    const length = buffer.length;
    let position = this.#position;
    let depth = this.#depth;
    let inString = this.#inString;
    let ended = false;
    for (;;) {
      if (inString) {
        const quote = buffer.indexOf(QUOTE, position);
        let backslash = this.#nextBackslash;
        if (backslash === -2 || (backslash >= 0 && backslash < position)) {
          backslash = buffer.indexOf(BACKSLASH, position);
          this.#nextBackslash = backslash;
        }
        if (backslash >= 0 && (quote < 0 || backslash < quote)) {
          position = backslash + 2; // the escaped byte is never a closing quote
          if (position > length) break;
          continue;
        }
        if (quote < 0) {
          position = length;
          break;
        }
        position = quote + 1;
        inString = false;
        if (depth === 0) {
          ended = true;
          break;
        }
        continue;
      }
      if (position >= length) break;
      const byte = buffer[position] as number;
      if (this.#scalar) {
        if (
          isJsonSpace(byte) ||
          byte === COMMA ||
          byte === CLOSE_BRACKET ||
          byte === CLOSE_BRACE ||
          byte === COLON ||
          byte === QUOTE ||
          byte === OPEN_BRACE ||
          byte === OPEN_BRACKET
        ) {
          if (position === this.#heldFrom) throw new JsonPageError('expected a value');
          ended = true;
          break;
        }
        position += 1;
        continue;
      }
      if (!this.#begun) {
        this.#begun = true;
        if (byte !== QUOTE && byte !== OPEN_BRACE && byte !== OPEN_BRACKET) {
          this.#scalar = true;
          continue;
        }
        // A container that is not a listed element is skipped, not held.
        if (byte !== QUOTE && this.#state === 'scanValue') this.#heldFrom = -1;
      }
      position += 1;
      if (byte === QUOTE) inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth += 1;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth -= 1;
        if (depth === 0) {
          ended = true;
          break;
        }
      }
    }
    this.#position = position;
    this.#depth = depth;
    this.#inString = inString;
    return ended;
  }
}

/** Held bytes as text; JSON is UTF-8 (RFC 8259), so anything else is refused, not replaced. */
function utf8Text(buffer: Buffer, from: number, to: number): string {
  const bytes = buffer.subarray(from, to);
  if (!isUtf8(bytes)) {
    throw new JsonPageError('not UTF-8 text; a JSON export is UTF-8, convert the file to UTF-8');
  }
  return bytes.toString('utf8');
}

/** A key, or a top-level string, number or literal the import does not read, checked all the same. */
function parseScalar(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new JsonPageError((error as Error).message);
  }
}

/** The rows of a JSON Lines file as records; a line that is not JSON is a malformed record, not fatal. */
export async function* readJsonLinesRecords(
  file: string,
  encoding: FileEncoding,
  meter?: ByteMeter,
): AsyncGenerator<ExportRecord | MalformedExportRecord> {
  let recordNumber = 0;
  for await (const line of readLines(file, encoding, meter)) {
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

async function* readLines(
  file: string,
  encoding: FileEncoding,
  meter?: ByteMeter,
): AsyncGenerator<string> {
  let rest = '';
  const decoder = strictDecoder(file, encoding);
  for (const chunk of readChunks(file, meter)) {
    const text = rest + decoder.decode(chunk);
    const lines = text.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) yield line.endsWith('\r') ? line.slice(0, -1) : line;
  }
  rest += decoder.end();
  if (rest !== '') yield rest;
}

/**
 * The rows of a CSV file (RFC 4180: comma-separated, fields in double quotes may hold commas,
 * line breaks and `""` for a quote; CRLF or LF line ends; a byte-order mark is dropped, as
 * ServiceNow and Excel write one), decoded as `encoding` ({@link encodingOfTextFile}), as objects
 * keyed by the header row. A row with a different number of fields than the header is a
 * malformed record.
 */
export async function* readCsvRecords(
  file: string,
  encoding: FileEncoding,
  meter?: ByteMeter,
): AsyncGenerator<ExportRecord | MalformedExportRecord> {
  let header: string[] | undefined;
  let recordNumber = 0;
  for await (const row of readCsvRows(file, encoding, meter)) {
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
export async function* readCsvRows(
  file: string,
  encoding: FileEncoding,
  meter?: ByteMeter,
): AsyncGenerator<string[]> {
  const decoder = strictDecoder(file, encoding);
  const parser = createCsvRowParser();
  for (const chunk of readChunks(file, meter)) {
    yield* parser.push(decoder.decode(chunk));
  }
  yield* parser.push(decoder.end());
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
