import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { temporaryFileFor } from './cache-file-temporary.js';
import type { ChunkAnalysis } from './chunk-analysis.js';
import { ANALYSIS_SOURCE, tokenizeForSearch } from './tokenize-for-search.js';

/** Analyses remembered from an earlier start, looked up by `analysisKeyOf`. */
export interface AnalysisCache {
  readonly size: number;
  lookup(key: string): ChunkAnalysis | undefined;
}

const MAGIC = 'LKA1';
const FIELD_COUNT = 2;
const KEY_BYTES = 16;

// Bilingual text exercising every rule of the analysis (NFKC, stop words, particles, bigrams).
const PROBE =
  'ＶＰＮに接続できない。The printers are offline; パスワードをリセットしてください Wi-Fi 1.5GHz';

/**
 * What the cached analyses depend on besides the text: the format, the ICU data (it decides
 * where `Intl.Segmenter` cuts), the analysis code and its output on a probe. A change to any of
 * them makes every cached entry unusable, so a stale analysis is never served. The index
 * snapshot (`index-snapshot.ts`) carries it too.
 */
export const ANALYSIS_FINGERPRINT = createHash('sha256')
  .update(MAGIC)
  .update(process.versions.icu ?? '')
  .update(ANALYSIS_SOURCE)
  .update(tokenizeForSearch(PROBE).join('\n'))
  .digest('hex');

/** The cache key of a chunk's analysis: a hash of the two fields analysed. */
export function analysisKeyOf(subject: string, text: string): string {
  return createHash('sha256')
    .update(subject)
    .update('\0')
    .update(text)
    .digest()
    .subarray(0, KEY_BYTES)
    .toString('base64');
}

/** No analyses: what a missing, foreign or damaged cache file reads as. */
export const EMPTY_ANALYSIS_CACHE: AnalysisCache = { size: 0, lookup: () => undefined };

/**
 * Reads the analysis cache file. A missing file, one from another analysis (`FINGERPRINT`) or
 * one that does not parse is an empty cache: the index is then built from the texts, as without
 * a cache, and the file rewritten.
 */
export function readAnalysisCache(file: string): AnalysisCache {
  let buffer: Buffer;
  try {
    buffer = readFileSync(file);
  } catch {
    return EMPTY_ANALYSIS_CACHE;
  }
  try {
    if (buffer.toString('latin1', 0, 4) !== MAGIC) return EMPTY_ANALYSIS_CACHE;
    const headerLength = buffer.readUInt32LE(4);
    const header = JSON.parse(buffer.toString('utf8', 8, 8 + headerLength)) as {
      fingerprint: string;
      termBytes: number;
      entries: number;
    };
    if (header.fingerprint !== ANALYSIS_FINGERPRINT) return EMPTY_ANALYSIS_CACHE;
    const termsStart = 8 + headerLength;
    const terms = buffer.toString('utf8', termsStart, termsStart + header.termBytes).split('\n');
    const entriesStart = align(termsStart + header.termBytes);
    // Entries are 4-byte aligned from the start of the file; copy if the buffer itself is not.
    const aligned = buffer.byteOffset % 4 === 0 ? buffer : Buffer.from(buffer);
    const words = new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.length >>> 2);
    const offsets = new Map<string, number>();
    let word = entriesStart >>> 2;
    for (let entry = 0; entry < header.entries; entry += 1) {
      const key = aligned.toString('base64', word * 4, word * 4 + KEY_BYTES);
      offsets.set(key, word);
      const counted = word + KEY_BYTES / 4;
      word = counted + FIELD_COUNT + (words[counted] as number) + (words[counted + 1] as number);
      if (word > words.length) return EMPTY_ANALYSIS_CACHE; // truncated
    }
    const termOf = (termId: number) => {
      const term = terms[termId];
      if (term === undefined) throw new Error(`analysis cache ${file}: no term ${termId}`);
      return term;
    };
    return {
      size: offsets.size,
      lookup: (key) => {
        const start = offsets.get(key);
        if (start === undefined) return undefined;
        const counted = start + KEY_BYTES / 4;
        const subjectCount = words[counted] as number;
        const textCount = words[counted + 1] as number;
        const subjectStart = counted + FIELD_COUNT;
        return {
          fields: [
            words.subarray(subjectStart, subjectStart + subjectCount),
            words.subarray(subjectStart + subjectCount, subjectStart + subjectCount + textCount),
          ],
          termOf,
        };
      },
    };
  } catch {
    return EMPTY_ANALYSIS_CACHE;
  }
}

const align = (offset: number) => Math.ceil(offset / 4) * 4;

/** One chunk to remember: its key and its analysis in the ids of `terms`. */
export interface CachedChunk {
  readonly key: string;
  readonly fields: readonly Uint32Array[];
}

/**
 * Writes the analyses of the current chunks (and only those: the file never grows with
 * documents deleted since), through a temporary file renamed into place, so a start that is
 * interrupted leaves the previous cache or none — never half a file.
 */
export function writeAnalysisCache(
  file: string,
  terms: readonly string[],
  chunks: readonly CachedChunk[],
): void {
  const encoding = encodeAnalysisCache(terms, chunks);
  let step = encoding.next();
  while (step.done !== true) step = encoding.next();
  mkdirSync(dirname(file), { recursive: true });
  const temporary = temporaryFileFor(file);
  writeFileSync(temporary, step.value);
  renameSync(temporary, file);
}

/**
 * `writeAnalysisCache` while the index serves: the same file through the same temporary file and
 * rename, encoded a few thousand chunks at a time between turns of the event loop and written by
 * the thread pool.
 */
export async function writeAnalysisCacheInBackground(
  file: string,
  terms: readonly string[],
  chunks: readonly CachedChunk[],
): Promise<void> {
  const encoding = encodeAnalysisCache(terms, chunks);
  let step = encoding.next();
  while (step.done !== true) {
    await yieldToEventLoop();
    step = encoding.next();
  }
  await mkdir(dirname(file), { recursive: true });
  const temporary = temporaryFileFor(file);
  await writeFile(temporary, step.value);
  await rename(temporary, file);
}

/** Chunks encoded between two pauses of `encodeAnalysisCache`. */
const CHUNKS_PER_PIECE = 5_000;

/** The cache file's bytes, pausing (yielding) every `CHUNKS_PER_PIECE` chunks. */
function* encodeAnalysisCache(
  terms: readonly string[],
  chunks: readonly CachedChunk[],
): Generator<void, Buffer> {
  const termBlob = Buffer.from(terms.join('\n'), 'utf8');
  const header = Buffer.from(
    JSON.stringify({
      fingerprint: ANALYSIS_FINGERPRINT,
      termBytes: termBlob.length,
      entries: chunks.length,
    }),
  );
  const entriesStart = align(8 + header.length + termBlob.length);
  let words = 0;
  for (const chunk of chunks) {
    words +=
      KEY_BYTES / 4 + FIELD_COUNT + (chunk.fields[0]?.length ?? 0) + (chunk.fields[1]?.length ?? 0);
  }
  const output = Buffer.alloc(entriesStart + words * 4);
  output.write(MAGIC, 0, 'latin1');
  output.writeUInt32LE(header.length, 4);
  header.copy(output, 8);
  termBlob.copy(output, 8 + header.length);
  const view = new Uint32Array(output.buffer, output.byteOffset, output.length >>> 2);
  let word = entriesStart >>> 2;
  for (const [entry, chunk] of chunks.entries()) {
    if (entry > 0 && entry % CHUNKS_PER_PIECE === 0) yield;
    output.write(chunk.key, word * 4, KEY_BYTES, 'base64');
    word += KEY_BYTES / 4;
    const [subject = new Uint32Array(), text = new Uint32Array()] = chunk.fields;
    view[word] = subject.length;
    view[word + 1] = text.length;
    word += FIELD_COUNT;
    view.set(subject, word);
    word += subject.length;
    view.set(text, word);
    word += text.length;
  }
  return output;
}
