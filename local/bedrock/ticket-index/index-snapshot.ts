import { createHash } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { endianness } from 'node:os';
import { dirname } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { ANALYSIS_FINGERPRINT } from './analysis-cache.js';
import { temporaryFileFor } from './cache-file-temporary.js';
import type { TicketMetadata } from './match-retrieval-filter.js';
import {
  chunkTicketDocument,
  type FieldPostings,
  type InvertedIndex,
  lengthNormsOf,
} from './ticket-index.js';

/**
 * One document as the data source last scanned it: what it indexes, the content hashes a sync
 * compares, and the file signatures (`fileSignatureOf`) that let the next scan take it from
 * here instead of reading the files again.
 */
export interface SnapshotDocument {
  readonly uri: string;
  readonly fileName: string;
  readonly text: string;
  readonly metadata: TicketMetadata;
  readonly textHash: string;
  readonly metadataHash: string;
  /** The document file's signature when it was read. */
  readonly textSignature: string;
  /** The sidecar's signature when it was read. */
  readonly sidecarSignature: string;
}

/**
 * What a start needs to serve without reading the folder's files or analysing anything: the
 * scanned documents in index order and the postings built from them.
 */
export interface IndexSnapshot {
  /** The folders scanned, in order (another set of folders cannot reuse the snapshot). */
  readonly folders: readonly { readonly directory: string; readonly uriPrefix: string }[];
  /**
   * Wall-clock time (ms since the epoch) the scan began. A file whose status changed after
   * `scannedAtMs − RACY_MARGIN_MS` may have changed again within the file system's timestamp
   * granularity without its signature showing it, so it is read again (`trustsSignatureOf`).
   */
  readonly scannedAtMs: number;
  readonly documents: readonly SnapshotDocument[];
  readonly postings: InvertedIndex;
  /** Distinct (subject, text) pairs (`AnalysisStatistics.distinct`). */
  readonly distinct: number;
}

/**
 * How long before a scan a file's status change must lie for its signature to be trusted: more
 * than the coarsest timestamp granularity of a file system a ticket folder may sit on (FAT's
 * 2 s) — git's "racily clean" rule.
 */
export const RACY_MARGIN_MS = 3_000;

/**
 * A file's signature: size, modification and status-change times, inode. Any write to the file,
 * a rename over it or a `touch` changes the status-change time (which no `utimes` can set back),
 * so an unchanged signature means unchanged content — provided the change was not within the
 * timestamp granularity of the scan (`trustsSignatureOf`). The times are `Stats`' milliseconds
 * (doubles, exact to a fraction of a microsecond today): a plain `statSync` costs far less than
 * one with `bigint`, and a later change differs from the recorded time by far more than that.
 */
export function fileSignatureOf(stats: {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ctimeMs: number;
  readonly ino: number;
}): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}`;
}

/** Whether a signature taken by the scan begun at `scannedAtMs` can stand for the content. */
export function trustsSignatureOf(signature: string, scannedAtMs: number): boolean {
  const ctimeMs = Number(signature.split(':')[2]);
  return ctimeMs < scannedAtMs - RACY_MARGIN_MS; // false for NaN: a malformed signature
}

const MAGIC = 'LKS2';
/**
 * What the postings depend on besides the texts: the analysis (its fingerprint), the chunking
 * and this file's layout. Another of any of them and the snapshot is not used.
 */
const SNAPSHOT_FINGERPRINT = createHash('sha256')
  .update(MAGIC)
  .update(ANALYSIS_FINGERPRINT)
  .update(chunkTicketDocument.toString())
  .update(endianness())
  .digest('hex');

/** Bytes per `readSync`/`writeSync` call (both take at most 2 GiB). */
const IO_BYTES = 1 << 28;

interface Section {
  readonly offset: number;
  readonly bytes: number;
}

interface Header {
  readonly fingerprint: string;
  readonly folders: IndexSnapshot['folders'];
  readonly scannedAtMs: number;
  readonly distinct: number;
  readonly documentCount: number;
  readonly termCount: number;
  readonly averageLengths: readonly number[];
  readonly sections: Readonly<Record<string, Section>>;
}

const bytesOf = (view: ArrayBufferView) =>
  new Uint8Array(view.buffer, view.byteOffset, view.byteLength);

/**
 * Writes the snapshot through a temporary file renamed into place: an interrupted write leaves
 * the previous snapshot or none. Sections are written one after another, each from the array
 * that holds it (the texts a few megabytes at a time), so the file is never assembled in memory;
 * the header follows them, and the last 8 bytes are its length and the magic, so a truncated
 * file is recognised as one.
 */
export function writeIndexSnapshot(file: string, snapshot: IndexSnapshot): void {
  mkdirSync(dirname(file), { recursive: true });
  const temporary = temporaryFileFor(file);
  const descriptor = openSync(temporary, 'w');
  try {
    for (const bytes of snapshotBytes(snapshot)) {
      for (let done = 0; done < bytes.length; ) {
        done += writeSync(descriptor, bytes, done, Math.min(IO_BYTES, bytes.length - done));
      }
    }
  } catch (error) {
    closeSync(descriptor);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(descriptor);
  renameSync(temporary, file);
}

/**
 * `writeIndexSnapshot` while the index serves: the same file through the same temporary file and
 * rename, written by the thread pool, and encoded a few megabytes at a time between turns of the
 * event loop — so a Retrieve waits for one piece at most, not for the whole file.
 */
export async function writeIndexSnapshotInBackground(
  file: string,
  snapshot: IndexSnapshot,
): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  const temporary = temporaryFileFor(file);
  const handle = await open(temporary, 'w');
  try {
    for (const bytes of snapshotBytes(snapshot)) {
      // Written before the next piece is encoded: the encoder reuses its buffer for texts.
      for (let done = 0; done < bytes.length; ) {
        const length = Math.min(IO_BYTES, bytes.length - done);
        done += (await handle.write(bytes, done, length)).bytesWritten;
      }
      await yieldToEventLoop();
    }
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  await rename(temporary, file);
}

/** Documents whose metadata are encoded as one piece of the snapshot. */
const DOCUMENTS_PER_PIECE = 5_000;
/** Bytes of text encoded before they are written (the texts are not held twice). */
const TEXT_PIECE_BYTES = 1 << 22;

/** The snapshot file's bytes in order, piece by piece (see `writeIndexSnapshot`). */
function* snapshotBytes(snapshot: IndexSnapshot): Generator<Uint8Array> {
  let position = 0;
  const sections: Record<string, Section> = {};
  function* section(name: string, views: Iterable<ArrayBufferView>): Generator<Uint8Array> {
    const offset = position;
    for (const view of views) {
      const bytes = bytesOf(view);
      position += bytes.length;
      yield bytes;
    }
    sections[name] = { offset, bytes: position - offset };
  }
  const { documents, postings } = snapshot;
  // One JSON array, encoded a few thousand documents at a time: the bytes of `JSON.stringify`
  // of the whole list (an array's elements are stringified alone and joined by commas).
  yield* section(
    'documents',
    (function* encoded() {
      yield Buffer.from('[');
      for (let start = 0; start < documents.length; start += DOCUMENTS_PER_PIECE) {
        const rows = documents
          .slice(start, start + DOCUMENTS_PER_PIECE)
          .map((document) => [
            document.uri,
            document.fileName,
            document.textHash,
            document.metadataHash,
            document.textSignature,
            document.sidecarSignature,
            document.metadata,
          ]);
        const elements = JSON.stringify(rows).slice(1, -1);
        yield Buffer.from(start === 0 ? elements : `,${elements}`);
      }
      yield Buffer.from(']');
    })(),
  );
  // UTF-16 as JavaScript holds them: decoded by a copy, where UTF-8 took most of a restart's
  // CPU; about as compact for Japanese text (2 bytes a character against 3).
  yield* section('textLengths', [Uint32Array.from(documents, (document) => document.text.length)]);
  // Texts gathered into one reused buffer: a write per text cost more than the encoding.
  yield* section(
    'texts',
    (function* encoded() {
      let piece = Buffer.allocUnsafe(TEXT_PIECE_BYTES);
      let filled = 0;
      for (const { text } of documents) {
        const bytes = text.length * 2;
        if (filled + bytes > piece.length && filled > 0) {
          yield piece.subarray(0, filled);
          filled = 0;
        }
        if (bytes > piece.length) piece = Buffer.allocUnsafe(bytes);
        filled += piece.write(text, filled, 'utf16le');
      }
      if (filled > 0) yield piece.subarray(0, filled);
    })(),
  );
  // A term never holds a line break: the analysis yields word-like segments and CJK bigrams.
  yield* section('terms', [Buffer.from([...postings.termIds.keys()].join('\n'), 'utf8')]);
  yield* section('alphanumericTerms', [
    Int32Array.from(postings.alphanumericTerms, (term) => postings.termIds.get(term) as number),
  ]);
  for (const [fieldId, field] of postings.fields.entries()) {
    yield* section(`offsets${fieldId}`, [field.offsets]);
    yield* section(`chunkIds${fieldId}`, [field.chunkIds]);
    yield* section(`frequencies${fieldId}`, [field.frequencies]);
    yield* section(`lengths${fieldId}`, [field.lengths]);
  }
  const header: Header = {
    fingerprint: SNAPSHOT_FINGERPRINT,
    folders: snapshot.folders,
    scannedAtMs: snapshot.scannedAtMs,
    distinct: snapshot.distinct,
    documentCount: documents.length,
    termCount: postings.termIds.size,
    averageLengths: postings.fields.map((field) => field.averageLength),
    sections,
  };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  yield headerBytes;
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(headerBytes.length, 0);
  trailer.write(MAGIC, 4, 'latin1');
  yield trailer;
}

/**
 * The texts laid end to end in `blob` (UTF-16), cut by their lengths in characters; lengths that
 * do not add up to the blob are a damaged file.
 */
function textsOf(blob: Buffer, lengths: Uint32Array): string[] {
  const texts: string[] = new Array(lengths.length);
  let start = 0;
  for (let row = 0; row < lengths.length; row += 1) {
    const end = start + 2 * (lengths[row] as number);
    if (end > blob.length) throw new UnusableSnapshotError('texts end early');
    texts[row] = blob.toString('utf16le', start, end);
    start = end;
  }
  if (start !== blob.length) throw new UnusableSnapshotError('texts left over');
  return texts;
}

/** The snapshot file could not be used; the index is built from the folder instead. */
class UnusableSnapshotError extends Error {}

/**
 * Reads a snapshot written by `writeIndexSnapshot` for these folders, section by section into
 * the arrays that serve them. A missing file, one for other folders or another analysis,
 * chunking or layout (`SNAPSHOT_FINGERPRINT`), or one whose sections do not fit together
 * (truncated, damaged) is no snapshot: `undefined`, and the caller builds from the folder.
 */
export function readIndexSnapshot(
  file: string,
  folders: IndexSnapshot['folders'],
): IndexSnapshot | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(descriptor).size;
    const readInto = <View extends ArrayBufferView>(view: View, offset: number): View => {
      const bytes = bytesOf(view);
      if (offset < 0 || offset + bytes.length > size) {
        throw new UnusableSnapshotError('section outside the file');
      }
      for (let done = 0; done < bytes.length; ) {
        const read = readSync(
          descriptor,
          bytes,
          done,
          Math.min(IO_BYTES, bytes.length - done),
          offset + done,
        );
        if (read === 0) throw new UnusableSnapshotError('file ends early');
        done += read;
      }
      return view;
    };
    if (size < 8) return undefined;
    const trailer = readInto(Buffer.alloc(8), size - 8);
    if (trailer.toString('latin1', 4) !== MAGIC) return undefined;
    const headerLength = trailer.readUInt32LE(0);
    const header = JSON.parse(
      readInto(Buffer.alloc(headerLength), size - 8 - headerLength).toString('utf8'),
    ) as Header;
    if (header.fingerprint !== SNAPSHOT_FINGERPRINT) return undefined;
    if (JSON.stringify(header.folders) !== JSON.stringify(folders)) return undefined;
    const sectionOf = (name: string): Section => {
      const section = header.sections[name];
      if (section === undefined) throw new UnusableSnapshotError(`no section ${name}`);
      return section;
    };
    const bufferOf = (name: string) => {
      const { offset, bytes } = sectionOf(name);
      // Not zeroed first: `readInto` fills every byte or throws.
      return readInto(Buffer.allocUnsafe(bytes), offset);
    };
    const arrayOf = <View extends Int32Array | Uint32Array | Uint8Array>(
      name: string,
      create: (length: number) => View,
      expectedLength?: number,
    ): View => {
      const { offset, bytes } = sectionOf(name);
      const view = create(bytes / create(0).BYTES_PER_ELEMENT);
      if (!Number.isInteger(bytes / view.BYTES_PER_ELEMENT)) {
        throw new UnusableSnapshotError(`section ${name} is not whole`);
      }
      if (expectedLength !== undefined && view.length !== expectedLength) {
        throw new UnusableSnapshotError(
          `section ${name} holds ${view.length}, not ${expectedLength}`,
        );
      }
      return readInto(view, offset);
    };

    const rows = JSON.parse(bufferOf('documents').toString('utf8')) as [
      string,
      string,
      string,
      string,
      string,
      string,
      TicketMetadata,
    ][];
    if (rows.length !== header.documentCount) throw new UnusableSnapshotError('document count');
    const textLengths = arrayOf('textLengths', (n) => new Uint32Array(n), rows.length);
    const texts = textsOf(bufferOf('texts'), textLengths);
    const documents = rows.map(
      (
        [uri, fileName, textHash, metadataHash, textSignature, sidecarSignature, metadata],
        row,
      ) => ({
        uri,
        fileName,
        text: texts[row] as string,
        metadata,
        textHash,
        metadataHash,
        textSignature,
        sidecarSignature,
      }),
    );

    const terms = bufferOf('terms').toString('utf8').split('\n');
    if (terms.length !== header.termCount) throw new UnusableSnapshotError('term count');
    const termIds = new Map<string, number>();
    for (const term of terms) termIds.set(term, termIds.size);
    if (termIds.size !== header.termCount) throw new UnusableSnapshotError('repeated term');
    const alphanumericTerms = Array.from(
      arrayOf('alphanumericTerms', (n) => new Int32Array(n)),
      (termId) => {
        const term = terms[termId];
        if (term === undefined) throw new UnusableSnapshotError(`no term ${termId}`);
        return term;
      },
    );
    const fields = header.averageLengths.map((averageLength, fieldId): FieldPostings => {
      const offsets = arrayOf(`offsets${fieldId}`, (n) => new Int32Array(n), terms.length + 1);
      const postingCount = offsets[terms.length] as number;
      for (let termId = 0; termId < terms.length; termId += 1) {
        if ((offsets[termId] as number) > (offsets[termId + 1] as number) || offsets[0] !== 0) {
          throw new UnusableSnapshotError(`offsets of field ${fieldId} not ascending`);
        }
      }
      const chunkIds = arrayOf(`chunkIds${fieldId}`, (n) => new Int32Array(n), postingCount);
      const frequencies = arrayOf(`frequencies${fieldId}`, (n) => new Uint8Array(n), postingCount);
      const lengths = arrayOf(`lengths${fieldId}`, (n) => new Int32Array(n));
      // Search indexes the per-chunk arrays by these ids: one out of range is a damaged file.
      for (const chunkId of chunkIds) {
        if (chunkId < 0 || chunkId >= lengths.length) {
          throw new UnusableSnapshotError(`chunk id ${chunkId} out of range`);
        }
      }
      const lengthNorms = lengthNormsOf(lengths, averageLength);
      return { offsets, chunkIds, frequencies, lengths, lengthNorms, averageLength };
    });
    return {
      folders: header.folders,
      scannedAtMs: header.scannedAtMs,
      documents,
      postings: { termIds, alphanumericTerms, fields },
      distinct: header.distinct,
    };
  } catch (error) {
    if (error instanceof UnusableSnapshotError || error instanceof SyntaxError) return undefined;
    if (error instanceof RangeError) return undefined; // an impossible length in a damaged file
    throw error;
  } finally {
    closeSync(descriptor);
  }
}
