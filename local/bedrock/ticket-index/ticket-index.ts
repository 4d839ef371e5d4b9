import { availableParallelism } from 'node:os';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { detectLanguage, type Language } from '../../../functions/contract/language.js';
import { LOCAL_DATA_SOURCE_ID, LOCAL_TICKET_BUCKET } from '../local-bedrock-defaults.js';
import {
  type AnalysisCache,
  analysisKeyOf,
  type CachedChunk,
  EMPTY_ANALYSIS_CACHE,
  readAnalysisCache,
  writeAnalysisCache,
  writeAnalysisCacheInBackground,
} from './analysis-cache.js';
import {
  type AnalysisPool,
  ChunkAnalyser,
  type ChunkAnalysis,
  PARALLEL_ANALYSIS_THRESHOLD,
  startAnalysisPool,
} from './chunk-analysis.js';
import { matchRetrievalFilter, type TicketMetadata } from './match-retrieval-filter.js';
import { tokenizeForSearch } from './tokenize-for-search.js';

/** One Knowledge Base source document with its sidecar metadata. */
export interface TicketDocument {
  /** File name inside the tickets directory, e.g. `1234.md`. */
  readonly fileName: string;
  readonly text: string;
  readonly metadata: TicketMetadata;
  /** Where the document lives. @default `s3://local-tickets/<fileName>` (the seed tickets) */
  readonly uri?: string;
}

/** Documents up to this many characters stay one chunk (a ticket is usually short). */
const MAX_CHUNK_CHARS = 1500;

/**
 * Splits a document into chunks the way a Knowledge Base's fixed-size chunking roughly does:
 * whole if short, otherwise greedy runs of paragraphs up to `MAX_CHUNK_CHARS`, hard-splitting a
 * paragraph that is longer on its own. No overlap: enough for keyword search.
 */
export function chunkTicketDocument(text: string, maxChars = MAX_CHUNK_CHARS): string[] {
  const trimmed = text.trim();
  if (trimmed.length <= maxChars) return [trimmed];
  const pieces = trimmed
    .split(/\n\s*\n/)
    .flatMap((paragraph) =>
      paragraph.length <= maxChars
        ? [paragraph]
        : Array.from({ length: Math.ceil(paragraph.length / maxChars) }, (_, index) =>
            paragraph.slice(index * maxChars, (index + 1) * maxChars),
          ),
    );
  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current !== '' && current.length + 2 + piece.length > maxChars) {
      chunks.push(current);
      current = piece;
    } else {
      current = current === '' ? piece : `${current}\n\n${piece}`;
    }
  }
  if (current !== '') chunks.push(current);
  return chunks;
}

/** One retrieval result in the Agent Runtime `Retrieve` response shape. */
export interface RetrievalResult {
  readonly content: { readonly text: string; readonly type: 'TEXT' };
  readonly location: { readonly type: 'S3'; readonly s3Location: { readonly uri: string } };
  readonly score: number;
  readonly metadata: Readonly<Record<string, unknown>>;
}

export interface TicketSearch {
  readonly text: string;
  readonly numberOfResults: number;
  /** A `RetrievalFilter` in its wire JSON shape. */
  readonly filter?: unknown;
}

/** Keyword search over the ticket corpus, answering like a Knowledge Base would. */
export interface TicketIndex {
  readonly chunkCount: number;
  /** @throws InvalidRetrievalFilterError for a malformed filter */
  search(search: TicketSearch): RetrievalResult[];
}

export type TicketLanguage = Language;

/** One indexed chunk of a document: what a Retrieve result carries, plus its language. */
export interface Chunk {
  readonly id: number;
  readonly subject: string;
  readonly language: TicketLanguage;
  readonly text: string;
  readonly uri: string;
  readonly metadata: TicketMetadata;
}

// BM25 scores are unbounded; Bedrock's are similarities in 0–1. Scaling by best / (best + K)
// keeps every score below 1 and gives weak matches (small best score) low values.
export const SCORE_DAMPING = 4;

/**
 * Where the best match in the other language lands against the best in the inquiry's language
 * (1 = level). Below 1, so a question's own-language tickets lead; high enough that the other
 * language's strong matches come right after them instead of below every weak own-language one.
 */
const OTHER_LANGUAGE_WEIGHT = 0.8;
/**
 * How many times the best own-language BM25 score a ticket in the other language must reach to
 * lead anyway: when the inquiry's language has only weak matches, a clearly better ticket in the
 * other language comes first. Both constants were chosen on the dev half of the evaluation set
 * (weight 0.7–0.9, lead 1.25–6 tried; ADR 0008).
 */
const OTHER_LANGUAGE_LEAD = 3;
/**
 * The share of a language's query terms its best ticket must match to count as a strong match.
 * When the inquiry's own language has a strong match, the other language keeps its full weight
 * only if its best ticket is strong too, and is weighted down in proportion otherwise: a
 * Japanese question that one Japanese ticket answers well must not have its second good answer
 * pushed below English tickets that share one bridge word with it (「パスワード」 → "password":
 * a guest Wi-Fi password ticket), just because those were scaled up to their own best.
 * When the own language is weak — as for a question about a ticket in the other language — the
 * other language keeps its full weight. Chosen on the dev half (ADR 0008).
 */
const STRONG_MATCH_COVERAGE = 0.5;

/**
 * The language of a retrieval query: that of its first line, the inquiry's own start — the
 * glossary expansion (`functions/chat/retrieval.ts`) follows on a later line, in the
 * other language on purpose.
 */
export const queryLanguageOf = (text: string): TicketLanguage =>
  detectLanguage(text.trimStart().split('\n')[0] ?? '');

/**
 * Ranks keyword hits over a bilingual corpus. BM25 scores of the two languages are not
 * comparable: a Japanese question yields dozens of terms (words and bigrams) that only Japanese
 * tickets can match, against the few expansion words an English ticket can, so raw scores bury
 * every ticket of the other language (and the reverse). Each language's hits are scaled by their
 * own best score — the federated-search merge of two collections — and the other language's
 * weighted by `OTHER_LANGUAGE_WEIGHT` (less when only the own language matches strongly:
 * `STRONG_MATCH_COVERAGE`), unless its raw score beats `OTHER_LANGUAGE_LEAD` times the best
 * own-language one. Within a language the BM25 order is unchanged.
 */
export function mergeLanguages(
  hits: readonly LanguageHit[],
  chunks: readonly { readonly language: TicketLanguage }[],
  query: { readonly language: TicketLanguage; readonly terms: readonly string[] },
): { id: number; score: number }[] {
  const best: Record<TicketLanguage, LanguageHit | undefined> = { ja: undefined, en: undefined };
  for (const hit of hits) {
    const { language } = chunks[hit.id] as { language: TicketLanguage };
    if (hit.score > (best[language]?.score ?? 0)) best[language] = hit;
  }
  const own = query.language;
  const other: TicketLanguage = own === 'ja' ? 'en' : 'ja';
  const strength = (language: TicketLanguage) =>
    Math.min(1, coverage(best[language], query.terms, language) / STRONG_MATCH_COVERAGE);
  const otherWeight = OTHER_LANGUAGE_WEIGHT * (strength(own) < 1 ? 1 : strength(other));
  const ownBest = best[own]?.score ?? 0;
  const merged = hits
    .map((hit) => {
      const { language } = chunks[hit.id] as { language: TicketLanguage };
      const scaled = hit.score / (best[language]?.score ?? 1);
      if (language === own) return { id: hit.id, score: scaled };
      const leading = ownBest > 0 ? hit.score / (OTHER_LANGUAGE_LEAD * ownBest) : 0;
      return { id: hit.id, score: Math.max(otherWeight * scaled, leading) };
    })
    .sort((a, b) => b.score - a.score);
  // A leading ticket of the other language can exceed 1; the best is 1 again.
  const top = merged[0]?.score ?? 1;
  return merged.map((hit) => ({ id: hit.id, score: hit.score / top }));
}

/** A BM25 hit on a chunk, with the query terms it matched (minisearch's `queryTerms`). */
export interface LanguageHit {
  readonly id: number;
  readonly score: number;
  readonly queryTerms: readonly string[];
}

/**
 * The share of the query's terms of a language (kanji or kana: Japanese; others: English) that a
 * hit matched; 1 when the query has none (nothing to fall short of).
 */
function coverage(
  hit: LanguageHit | undefined,
  queryTerms: readonly string[],
  language: TicketLanguage,
): number {
  const terms = new Set(queryTerms.filter((term) => detectLanguage(term) === language));
  if (terms.size === 0) return 1;
  if (hit === undefined) return 0;
  return new Set(hit.queryTerms.filter((term) => terms.has(term))).size / terms.size;
}

/** Only alphanumeric query terms of 4+ characters also match the index terms they begin. */
const isPrefixTerm = (term: string) => /^[a-z0-9]{4,}$/.test(term);

/** The subject counts double (minisearch `boost`, kept in the hand-written index). */
const SUBJECT_BOOST = 2;

/** The documents as the chunks a Knowledge Base would index, numbered in document order. */
export function chunksOf(documents: readonly TicketDocument[]): Chunk[] {
  const chunks: Chunk[] = [];
  for (const document of documents) chunks.push(...chunksOfDocument(document, chunks.length));
  return chunks;
}

/** One document's chunks, numbered from `firstId`. */
function chunksOfDocument(document: TicketDocument, firstId: number): Chunk[] {
  const uri = document.uri ?? `s3://${LOCAL_TICKET_BUCKET}/${document.fileName}`;
  const subject = String(document.metadata.subject ?? '');
  return chunkTicketDocument(document.text).map((text, part) => ({
    id: firstId + part,
    subject,
    language: detectLanguage(subject || text),
    text,
    uri,
    metadata: {
      ...document.metadata,
      'x-amz-bedrock-kb-source-uri': uri,
      'x-amz-bedrock-kb-chunk-id': `${document.fileName}#${part + 1}`,
      'x-amz-bedrock-kb-data-source-id': LOCAL_DATA_SOURCE_ID,
    },
  }));
}

const toResult = (chunk: Chunk, score: number): RetrievalResult => ({
  content: { text: chunk.text, type: 'TEXT' },
  location: { type: 'S3', s3Location: { uri: chunk.uri } },
  score: Math.round(score * 10_000) / 10_000,
  metadata: chunk.metadata,
});

/**
 * The Retrieve answer from BM25 hits that passed the filter, best first (ties in the order the
 * hits were first found): merged across languages, damped to 0–1, and — with a filter — the
 * remaining slots filled with other chunks passing it, at score 0 (`fillers`, in chunk order).
 * Shared by the index and its minisearch reference, so both answer alike by construction.
 */
export function toRetrievalResults(
  matches: readonly LanguageHit[],
  chunks: readonly Chunk[],
  search: TicketSearch,
  fillers: () => Iterable<Chunk>,
): RetrievalResult[] {
  const { text, numberOfResults, filter } = search;
  const bestMatch = matches[0]?.score ?? 0;
  const strength = bestMatch / (bestMatch + SCORE_DAMPING);
  const query = { language: queryLanguageOf(text), terms: tokenizeForSearch(text) };
  const hits = mergeLanguages(matches, chunks, query).slice(0, numberOfResults);
  const results = hits.map((hit) => toResult(chunks[hit.id] as Chunk, hit.score * strength));
  if (filter === undefined || results.length >= numberOfResults) return results;
  const found = new Set(hits.map((hit) => hit.id));
  for (const chunk of fillers()) {
    if (results.length >= numberOfResults) break;
    if (!found.has(chunk.id)) results.push(toResult(chunk, 0));
  }
  return results;
}

/** The index's fields in scoring order (minisearch's `fields`): the subject, then the chunk. */
const FIELDS = ['subject', 'text'] as const;
const FIELD_BOOSTS = [SUBJECT_BOOST, 1] as const;
/** minisearch's defaults: BM25+ parameters and the weight of a prefix match. */
const BM25 = { k: 1.2, b: 0.7, d: 0.5 } as const;
const PREFIX_WEIGHT = 0.375;
/** Filters whose per-chunk verdicts are remembered (the product sends one or two). */
const REMEMBERED_FILTERS = 16;

/**
 * Term → chunks lists of one field, in compressed-sparse-row form: the chunks that contain term
 * `t` are `chunkIds[offsets[t]] … chunkIds[offsets[t + 1] - 1]`, ascending, with their term
 * frequencies at the same positions in `frequencies`.
 */
export interface FieldPostings {
  readonly offsets: Int32Array;
  readonly chunkIds: Int32Array;
  readonly frequencies: Uint8Array;
  /** Distinct terms per chunk: minisearch's field length. */
  readonly lengths: Int32Array;
  /**
   * BM25's length normalisation per chunk, `k · (1 − b + b · length / averageLength)`: the same
   * value the formula computes inline, computed once instead of once per posting.
   */
  readonly lengthNorms: Float64Array;
  /** Their running mean, computed as minisearch does, so scores match it to the bit. */
  readonly averageLength: number;
}

/**
 * The analysed chunks: the term dictionary and each field's postings — what a build computes
 * from the texts, and what `index-snapshot.ts` keeps between starts.
 */
export interface InvertedIndex {
  /** Term → term id; ids are 0 … size − 1 in the Map's (insertion) order. */
  readonly termIds: ReadonlyMap<string, number>;
  /** Terms starting with a letter or digit, sorted: where prefix matches are looked up. */
  readonly alphanumericTerms: readonly string[];
  /** Subject, then text (`FIELDS`). */
  readonly fields: readonly FieldPostings[];
}

/**
 * BM25's length normalisation of each chunk of a field (`FieldPostings.lengthNorms`), from its
 * field lengths and their mean: computed on a restore too, so a snapshot never carries a value
 * of other BM25 parameters.
 */
export function lengthNormsOf(lengths: Int32Array, averageLength: number): Float64Array {
  const { k, b } = BM25;
  const norms = new Float64Array(lengths.length);
  for (let chunkId = 0; chunkId < lengths.length; chunkId += 1) {
    norms[chunkId] = k * (1 - b + (b * (lengths[chunkId] as number)) / averageLength);
  }
  return norms;
}

/** A `Uint32Array` that grows as values are appended. */
class GrowingUint32Array {
  values = new Uint32Array(1 << 16);
  length = 0;
  push(value: number): void {
    if (this.length === this.values.length) this.reserve(1);
    this.values[this.length] = value;
    this.length += 1;
  }
  /** Grows (with zeros), if need be, to hold `count` more values than `length` without growing. */
  reserve(count: number): void {
    if (this.length + count <= this.values.length) return;
    let capacity = this.values.length * 2;
    while (capacity < this.length + count) capacity *= 2;
    const grown = new Uint32Array(capacity);
    grown.set(this.values.subarray(0, this.length));
    this.values = grown;
  }
}

/** How a build came by each chunk's analysis. */
export interface AnalysisStatistics {
  /** Chunks analysed from their text (`tokenizeForSearch`). */
  readonly analysed: number;
  /** Chunks whose analysis was read from the cache file, or all of them from restored postings. */
  readonly reused: number;
  /** Distinct (subject, text) pairs: the entries a cache of this index holds. */
  readonly distinct: number;
}

/** What laying out the postings yields: the index, its statistics, and its cache entries. */
interface LaidOut {
  readonly index: InvertedIndex;
  readonly statistics: AnalysisStatistics;
  readonly toCache: () => { terms: string[]; chunks: CachedChunk[] };
}

/**
 * Lays the postings out in typed arrays as chunks are added in index order, each with its
 * analysis when known (from the cache file or a worker) or analysed here from its text: per
 * field and chunk, the (term id, frequency) pairs packed in one integer, then, once all are
 * added, counted into place by term. Term ids are given in order of first occurrence either
 * way, so an index built from the cache or in workers is the index built from the texts.
 */
class PostingsLayout {
  private readonly vocabulary = new ChunkAnalyser();
  private readonly packedByField = FIELDS.map(() => new GrowingUint32Array());
  /** Per field, where each chunk's entries start in `packedByField` (and the end, last). */
  private readonly chunkStarts = FIELDS.map(() => {
    const starts = new GrowingUint32Array();
    starts.push(0);
    return starts;
  });
  private readonly documentFrequencies = FIELDS.map(() => new GrowingUint32Array());
  private readonly lengths = FIELDS.map(() => new GrowingUint32Array());
  private readonly averageLengths = FIELDS.map(() => 0);
  /**
   * Per vocabulary of a known analysis (the cache file's, each worker's): its term id → ours,
   * filled as its terms are met — so ids are still given in order of first occurrence.
   */
  private readonly idMaps = new Map<ChunkAnalysis['termOf'], number[]>();
  private reused = 0;
  private added = 0;

  /** Adds the next chunk (ids in order); `cached` counts its analysis as reused. */
  add(chunk: Chunk, analysis: ChunkAnalysis | undefined, cached: boolean): void {
    if (chunk.id !== this.added) throw new Error(`chunk ${chunk.id} laid out as ${this.added}`);
    this.added += 1;
    if (cached) this.reused += 1;
    const fieldEntries = analysis?.fields ?? this.vocabulary.analyse(chunk.subject, chunk.text);
    const theirsToOurs = analysis === undefined ? undefined : this.idMapOf(analysis.termOf);
    for (let fieldId = 0; fieldId < FIELDS.length; fieldId += 1) {
      const packed = this.packedByField[fieldId] as GrowingUint32Array;
      const counts = this.documentFrequencies[fieldId] as GrowingUint32Array;
      const entries = fieldEntries[fieldId] as Uint32Array;
      // Room for every entry, and for a count of every term id this chunk can introduce.
      packed.reserve(entries.length);
      counts.length = this.vocabulary.terms.length;
      counts.reserve(entries.length);
      const packedValues = packed.values;
      const countValues = counts.values;
      let packedLength = packed.length;
      for (let entry = 0; entry < entries.length; entry += 1) {
        const value = entries[entry] as number;
        // `termId * 256 + frequency` (< 2³²): the shifts are the division and the remainder.
        let termId = value >>> 8;
        // A known analysis is in its own vocabulary's ids: mapped into ours as they are met.
        if (theirsToOurs !== undefined) {
          const theirs = termId;
          const ours = theirsToOurs[theirs];
          if (ours === undefined) {
            termId = this.vocabulary.idOf((analysis as ChunkAnalysis).termOf(theirs));
            theirsToOurs[theirs] = termId;
          } else {
            termId = ours;
          }
        }
        countValues[termId] = (countValues[termId] as number) + 1;
        packedValues[packedLength] = termId * 256 + (value & 255);
        packedLength += 1;
      }
      packed.length = packedLength;
      const distinctTerms = entries.length;
      (this.chunkStarts[fieldId] as GrowingUint32Array).push(packed.length);
      (this.lengths[fieldId] as GrowingUint32Array).push(distinctTerms);
      // minisearch's addFieldLength: the running mean, in its order of operations.
      const average = this.averageLengths[fieldId] as number;
      this.averageLengths[fieldId] = (average * chunk.id + distinctTerms) / (chunk.id + 1);
    }
  }

  private idMapOf(termOf: ChunkAnalysis['termOf']): number[] {
    const known = this.idMaps.get(termOf);
    if (known !== undefined) return known;
    const created: number[] = [];
    this.idMaps.set(termOf, created);
    return created;
  }

  /** The postings of the chunks added (all of `chunks`, whose keys are `keys`). */
  finish(chunks: readonly Chunk[], keys: readonly string[]): LaidOut {
    if (this.added !== chunks.length) {
      throw new Error(`${this.added} chunks laid out of ${chunks.length}`);
    }
    const termIds = this.vocabulary.ids;
    const fields = FIELDS.map((_, fieldId): FieldPostings => {
      const counts = (this.documentFrequencies[fieldId] as GrowingUint32Array).values;
      const offsets = new Int32Array(termIds.size + 1);
      for (let termId = 0; termId < termIds.size; termId += 1) {
        offsets[termId + 1] = (offsets[termId] as number) + (counts[termId] ?? 0);
      }
      const { values: packed, length } = this.packedByField[fieldId] as GrowingUint32Array;
      const chunkIds = new Int32Array(length);
      const frequencies = new Uint8Array(length);
      const next = offsets.slice(0, termIds.size);
      const starts = (this.chunkStarts[fieldId] as GrowingUint32Array).values;
      for (let chunkId = 0; chunkId < chunks.length; chunkId += 1) {
        const end = starts[chunkId + 1] as number;
        for (let entry = starts[chunkId] as number; entry < end; entry++) {
          const value = packed[entry] as number;
          const termId = value >>> 8;
          const position = next[termId] as number;
          next[termId] = position + 1;
          chunkIds[position] = chunkId;
          frequencies[position] = value & 255;
        }
      }
      const lengths = Int32Array.from(
        (this.lengths[fieldId] as GrowingUint32Array).values.subarray(0, chunks.length),
      );
      const averageLength = this.averageLengths[fieldId] as number;
      return {
        offsets,
        chunkIds,
        frequencies,
        lengths,
        lengthNorms: lengthNormsOf(lengths, averageLength),
        averageLength,
      };
    });
    const alphanumericTerms = [...termIds.keys()].filter((term) => /^[a-z0-9]/.test(term)).sort();
    const { packedByField, chunkStarts } = this;
    return {
      index: { termIds, alphanumericTerms, fields },
      statistics: {
        analysed: chunks.length - this.reused,
        reused: this.reused,
        distinct: new Set(keys).size,
      },
      toCache: (written = new Set<string>()) => ({
        terms: [...termIds.keys()], // a Map iterates in insertion order: the term ids' order
        // Identical chunks (same subject and text) share one entry.
        chunks: chunks
          .filter(
            (chunk) =>
              !written.has(keys[chunk.id] as string) && written.add(keys[chunk.id] as string),
          )
          .map((chunk) => ({
            key: keys[chunk.id] as string,
            fields: FIELDS.map((_, fieldId) => {
              const starts = (chunkStarts[fieldId] as GrowingUint32Array).values;
              const { values } = packedByField[fieldId] as GrowingUint32Array;
              return values.subarray(starts[chunk.id], starts[chunk.id + 1]);
            }),
          })),
      }),
    };
  }
}

/** Analyses every chunk once — or takes its analysis from the cache — and lays the postings out. */
function buildInvertedIndex(
  chunks: readonly Chunk[],
  keys: readonly string[],
  cache: AnalysisCache,
  /** Analyses made for this build (in worker threads), by key: counted as analysed. */
  precomputed: ReadonlyMap<string, ChunkAnalysis>,
): LaidOut {
  const layout = new PostingsLayout();
  for (const chunk of chunks) {
    const key = keys[chunk.id] as string;
    const cached = cache.lookup(key);
    layout.add(chunk, cached ?? precomputed.get(key), cached !== undefined);
  }
  return layout.finish(chunks, keys);
}

/** An index term a query term matches, with the weight of that match (1 exact, less a prefix). */
interface TermMatch {
  readonly termId: number;
  readonly weight: number;
}

/** The index terms one query term matches: itself, and for `isPrefixTerm` those it begins. */
function termMatchesOf(index: InvertedIndex, term: string): TermMatch[] {
  const exact = index.termIds.get(term);
  const matches: TermMatch[] = exact === undefined ? [] : [{ termId: exact, weight: 1 }];
  if (!isPrefixTerm(term)) return matches;
  const terms = index.alphanumericTerms;
  let low = 0;
  let high = terms.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((terms[middle] as string) < term) low = middle + 1;
    else high = middle;
  }
  for (let position = low; position < terms.length; position += 1) {
    const candidate = terms[position] as string;
    if (!candidate.startsWith(term)) break;
    const distance = candidate.length - term.length;
    if (distance === 0) continue;
    // minisearch's prefix weight, approaching 0 as the index term grows longer than the query's.
    const weight = (PREFIX_WEIGHT * candidate.length) / (candidate.length + 0.3 * distance);
    matches.push({ termId: index.termIds.get(candidate) as number, weight });
  }
  return matches;
}

/** Whether a field's postings of a term hold a chunk (binary search; the lists are sorted). */
function postingsHold(field: FieldPostings, termId: number, chunkId: number): boolean {
  let low = field.offsets[termId] as number;
  let high = field.offsets[termId + 1] as number;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const found = field.chunkIds[middle] as number;
    if (found === chunkId) return true;
    if (found < chunkId) low = middle + 1;
    else high = middle;
  }
  return false;
}

/** A chunk scored for one query: its BM25+ score and the order it was first found in. */
interface Candidate {
  readonly id: number;
  readonly score: number;
  readonly rank: number;
}

export interface TicketIndexOptions {
  /**
   * The postings an earlier build computed for exactly these documents (`index-snapshot.ts`
   * restores them): used instead of analysing, so a restart does no analysis and no layout.
   * The caller vouches that the documents are those the postings were built from (their
   * content hashes); a chunk count that does not fit throws. @default built from the texts
   */
  readonly postings?: { readonly index: InvertedIndex; readonly distinct: number };
  /**
   * A file remembering each chunk's analysis (keyed by a hash of its subject and text) between
   * starts: a second start over the same folder skips `Intl.Segmenter`, the bulk of the build,
   * and a changed document is analysed again on its own. Rewritten after a build that analysed
   * anything. @default no cache: every chunk analysed from its text
   */
  readonly analysisCacheFile?: string;
}

/**
 * Indexes ticket documents for BM25+ keyword search with Japanese segmentation and CJK bigrams
 * (`tokenizeForSearch`); the subject counts double. Japanese and English tickets are ranked
 * each on their own scale and merged (`mergeLanguages`).
 *
 * A hand-written inverted index in typed arrays (ADR 0021): it scores exactly as minisearch did
 * (`createMinisearchTicketIndex`, the reference it is tested against) — same BM25+ formula,
 * prefix weights, OR combination and order of floating-point operations — but accumulates
 * scores in flat arrays instead of a map of objects per matching chunk, keeps only the best
 * `numberOfResults` per language (all that the merge can return: it preserves the order within
 * a language), and evaluates the filter only for a chunk that would enter them, remembering
 * each filter's verdicts per chunk.
 *
 * Vector search always returns its nearest neighbours; keyword search finds nothing for a query
 * without shared terms. So: without a filter, only matching chunks come back; with a filter
 * (fetching tickets by `issue_id`, often with an empty-ish query) the remaining slots are filled
 * with other chunks passing the filter, at score 0.
 */
export function createTicketIndex(
  documents: readonly TicketDocument[],
  options: TicketIndexOptions = {},
): BuiltTicketIndex {
  const chunks = chunksOf(documents);
  return searchable(
    chunks,
    options.postings === undefined
      ? buildFromTexts(chunks, options.analysisCacheFile)
      : restored(chunks, options.postings),
  );
}

export type BuiltTicketIndex = TicketIndex & {
  readonly analysis: AnalysisStatistics;
  /** The built postings, for `index-snapshot.ts` to keep. */
  readonly postings: InvertedIndex;
};

export interface ParallelAnalysisOptions {
  /** Worker threads to analyse in. @default os.availableParallelism() */
  readonly workers?: number;
  /** Fewer chunks to analyse than this are analysed on the calling thread. @default 4,000 */
  readonly minimumChunks?: number;
}

/** When a build writes its analysis cache file (`TicketIndexOptions.analysisCacheFile`). */
export type AnalysisCacheWrite =
  /** Before the index is returned: a start that has returned has its cache on disk. */
  | 'before-return'
  /**
   * After: the index is returned as soon as it can answer, and the file is written while it
   * serves (`BuiltTicketIndexInParallel.analysisCacheWritten`), through the same temporary file
   * and rename — a process killed meanwhile leaves the previous cache or none.
   */
  | 'in-background';

export type BuiltTicketIndexInParallel = BuiltTicketIndex & {
  /**
   * Settles when the analysis cache file is written (at once when nothing was to be written or
   * it was written before return). Never rejects: a failed write is reported as a warning — the
   * index serves without it, and the next start analyses again.
   */
  readonly analysisCacheWritten: Promise<void>;
};

/** Options of a build in worker threads (`createTicketIndexInParallel`, `startTicketIndexBuild`). */
export type ParallelBuildOptions = Pick<TicketIndexOptions, 'analysisCacheFile'> &
  ParallelAnalysisOptions & {
    /** @default 'before-return' */
    readonly analysisCacheWrite?: AnalysisCacheWrite;
  };

/**
 * `createTicketIndex` from the texts, with the chunks the analysis cache lacks analysed in
 * worker threads (`analyseInWorkers`) when there are many: a first start over 100,000 tickets
 * spends most of its time in `Intl.Segmenter`. The index is the one `createTicketIndex` builds.
 */
export function createTicketIndexInParallel(
  documents: readonly TicketDocument[],
  options: ParallelBuildOptions = {},
): Promise<BuiltTicketIndexInParallel> {
  const build = startTicketIndexBuild(options);
  for (const document of documents) build.add(document);
  return build.finish();
}

/** A `createTicketIndexInParallel` fed its documents one by one, as a scan finds them. */
export interface TicketIndexBuild {
  /** Adds the next document, in index order. */
  add(document: TicketDocument): void;
  /** The index of the documents added; rejects when an analysis worker failed. */
  finish(): Promise<BuiltTicketIndexInParallel>;
  /** Drops the build: workers stopped, no cache written. */
  abandon(): Promise<void>;
}

/**
 * Starts a build whose work overlaps the caller's: each document added is chunked and its
 * chunks looked up in the analysis cache; those it lacks go to worker threads as soon as there
 * are `minimumChunks` of them (fewer are analysed on this thread by `finish`), and the postings
 * are laid out in chunk order as analyses come back — so reading files (the caller), analysing
 * (the workers) and laying out (between the caller's turns) share the cores, instead of each
 * waiting for the one before. The index is the one `createTicketIndex` builds (tested).
 */
export function startTicketIndexBuild(options: ParallelBuildOptions = {}): TicketIndexBuild {
  const {
    workers = availableParallelism(),
    minimumChunks = PARALLEL_ANALYSIS_THRESHOLD,
    analysisCacheFile,
    analysisCacheWrite = 'before-return',
  } = options;
  const cache =
    analysisCacheFile === undefined ? EMPTY_ANALYSIS_CACHE : readAnalysisCache(analysisCacheFile);
  const chunks: Chunk[] = [];
  const keys: string[] = [];
  /** Per chunk, its analysis from the cache file. */
  const cachedAnalyses: (ChunkAnalysis | undefined)[] = [];
  /** Analyses made for this build, by key (a repeated chunk shares its first one's). */
  const analysed = new Map<string, ChunkAnalysis>();
  /** Keys of the chunks to analyse, in the order found: not yet sent, or sent to `pool`. */
  const toAnalyse: string[] = [];
  const awaited = new Set<string>();
  let pool: AnalysisPool | undefined;
  let sentToPool = 0;
  const layout = new PostingsLayout();
  let laidOut = 0;
  /** Lays out the chunks whose analyses are known, in order; `analyseRest` analyses the others here. */
  const layOutReady = (analyseRest = false) => {
    while (laidOut < chunks.length) {
      const cached = cachedAnalyses[laidOut];
      const analysis = cached ?? analysed.get(keys[laidOut] as string);
      if (analysis === undefined && !analyseRest) return;
      layout.add(chunks[laidOut] as Chunk, analysis, cached !== undefined);
      cachedAnalyses[laidOut] = undefined; // laid out: not held to the end
      laidOut += 1;
    }
  };
  const chunkOfKey = new Map<string, Chunk>();
  const sendToPool = () => {
    if (pool === undefined) {
      if (workers < 2 || toAnalyse.length < minimumChunks) return;
      const keysSent = toAnalyse;
      pool = startAnalysisPool(workers, (first, analyses) => {
        analyses.forEach((analysis, offset) => {
          analysed.set(keysSent[first + offset] as string, analysis);
        });
        layOutReady();
      });
    }
    for (; sentToPool < toAnalyse.length; sentToPool += 1) {
      const key = toAnalyse[sentToPool] as string;
      pool.add(chunkOfKey.get(key) as Chunk);
      chunkOfKey.delete(key);
    }
  };
  return {
    add: (document) => {
      for (const chunk of chunksOfDocument(document, chunks.length)) {
        const key = analysisKeyOf(chunk.subject, chunk.text);
        const cached = cache.lookup(key);
        chunks.push(chunk);
        keys.push(key);
        cachedAnalyses.push(cached);
        if (cached === undefined && !awaited.has(key)) {
          awaited.add(key);
          toAnalyse.push(key);
          chunkOfKey.set(key, chunk);
        }
      }
      sendToPool();
      layOutReady();
    },
    finish: async () => {
      if (pool !== undefined) await pool.finish();
      // Without workers (few chunks to analyse), the rest is analysed here as it is laid out.
      layOutReady(true);
      const built = layout.finish(chunks, keys);
      const analysisCacheWritten = writeCacheOf(
        built,
        analysisCacheFile,
        cache,
        analysisCacheWrite,
      );
      return { ...searchable(chunks, built), analysisCacheWritten };
    },
    abandon: async () => {
      await pool?.stop();
    },
  };
}

/** The search over built (or restored) postings. */
function searchable(
  chunks: readonly Chunk[],
  { index, statistics }: { index: InvertedIndex; statistics: AnalysisStatistics },
): BuiltTicketIndex {
  const count = chunks.length;
  // Scratch space reused by every search (searches run one at a time on the event loop).
  const termScores = new Float64Array(count);
  const termMarks = new Int32Array(count).fill(-1);
  const termTouched = new Int32Array(count);
  const scores = new Float64Array(count);
  const marks = new Int32Array(count).fill(-1);
  const matchedTerms = new Int32Array(count);
  const touched = new Int32Array(count);
  let termGeneration = 0;
  let searchGeneration = 0;
  const filterVerdicts = new Map<string, Int8Array>();

  const verdictsFor = (filter: unknown): Int8Array => {
    const key = JSON.stringify(filter);
    let verdicts = filterVerdicts.get(key);
    if (verdicts === undefined) {
      if (filterVerdicts.size >= REMEMBERED_FILTERS) {
        filterVerdicts.delete(filterVerdicts.keys().next().value as string);
      }
      verdicts = new Int8Array(count); // 0 not yet evaluated, 1 passes, 2 does not
      filterVerdicts.set(key, verdicts);
    }
    return verdicts;
  };

  // Metadata key → value (as text) → its chunks, ascending; built on a key's first use.
  const valueIndexes = new Map<string, Map<string, number[]>>();
  const chunksWithValue = (key: unknown, value: unknown): readonly number[] | undefined => {
    if (typeof key !== 'string' || (typeof value !== 'string' && typeof value !== 'number')) {
      return undefined;
    }
    let byValue = valueIndexes.get(key);
    if (byValue === undefined) {
      byValue = new Map();
      for (const chunk of chunks) {
        const held = chunk.metadata[key];
        if (typeof held !== 'string' && typeof held !== 'number') continue;
        const list = byValue.get(String(held));
        if (list === undefined) byValue.set(String(held), [chunk.id]);
        else list.push(chunk.id);
      }
      valueIndexes.set(key, byValue);
    }
    return byValue.get(String(value)) ?? [];
  };
  /**
   * The chunks a filter can pass at most, ascending — for `equals` and `in` (on strings and
   * numbers; equal values have equal text, also across the two, as `equals` compares them) and
   * an `andAll` holding one — or undefined when it cannot narrow. Every chunk is still checked
   * against the filter itself: this only spares a fetch by `issue_id` a pass over every chunk.
   */
  const candidatesOf = (filter: unknown): readonly number[] | undefined => {
    const [operator, operand] = (Object.entries(filter as object)[0] ?? []) as [string, unknown];
    const { key, value } = (operand ?? {}) as { key?: unknown; value?: unknown };
    if (operator === 'equals') return chunksWithValue(key, value);
    if (operator === 'in' && Array.isArray(value)) {
      const lists = value.map((one) => chunksWithValue(key, one));
      if (lists.some((list) => list === undefined)) return undefined;
      return [...new Set(lists.flat() as number[])].sort((a, b) => a - b);
    }
    if (operator === 'andAll' && Array.isArray(operand)) {
      const narrowed = operand
        .map(candidatesOf)
        .filter((list): list is readonly number[] => list !== undefined);
      return narrowed.sort((a, b) => a.length - b.length)[0];
    }
    return undefined;
  };

  const search = (search: TicketSearch): RetrievalResult[] => {
    const { text, numberOfResults, filter } = search;
    // Validate the filter even when nothing matches the text, as Bedrock rejects it up front.
    if (filter !== undefined) matchRetrievalFilter(filter, {});
    const verdicts = filter === undefined ? undefined : verdictsFor(filter);
    const passes = (chunkId: number): boolean => {
      if (verdicts === undefined) return true;
      if (verdicts[chunkId] === 0) {
        const chunk = chunks[chunkId] as Chunk;
        verdicts[chunkId] = matchRetrievalFilter(filter, chunk.metadata) ? 1 : 2;
      }
      return verdicts[chunkId] === 1;
    };

    searchGeneration += 1;
    let touchedCount = 0;
    const queryTerms = tokenizeForSearch(text);
    const matchesByTerm = new Map<string, TermMatch[]>();
    for (const term of queryTerms) {
      // Each occurrence of a term is its own query, as in minisearch: a repeated term counts
      // again in the score, but once in the number of matched terms.
      const firstOccurrence = !matchesByTerm.has(term);
      if (firstOccurrence) matchesByTerm.set(term, termMatchesOf(index, term));
      termGeneration += 1;
      let termTouchedCount = 0;
      for (const { termId, weight } of matchesByTerm.get(term) as TermMatch[]) {
        FIELDS.forEach((_, fieldId) => {
          const field = index.fields[fieldId] as FieldPostings;
          const start = field.offsets[termId] as number;
          const end = field.offsets[termId + 1] as number;
          if (start === end) return;
          const matching = end - start;
          const inverseDocumentFrequency = Math.log(
            1 + (count - matching + 0.5) / (matching + 0.5),
          );
          const fieldWeight = weight * (FIELD_BOOSTS[fieldId] as number);
          const { k, d } = BM25;
          const { chunkIds, frequencies, lengthNorms } = field;
          for (let position = start; position < end; position += 1) {
            const chunkId = chunkIds[position] as number;
            const frequency = frequencies[position] as number;
            const rawScore =
              inverseDocumentFrequency *
              (d + (frequency * (k + 1)) / (frequency + (lengthNorms[chunkId] as number)));
            const weighted = fieldWeight * rawScore;
            if (termMarks[chunkId] === termGeneration) {
              termScores[chunkId] = (termScores[chunkId] as number) + weighted;
            } else {
              termMarks[chunkId] = termGeneration;
              termScores[chunkId] = weighted;
              termTouched[termTouchedCount] = chunkId;
              termTouchedCount += 1;
            }
          }
        });
      }
      // minisearch's OR: the term's score per chunk is added to the sum of the earlier terms'.
      for (let position = 0; position < termTouchedCount; position += 1) {
        const chunkId = termTouched[position] as number;
        if (marks[chunkId] === searchGeneration) {
          scores[chunkId] = (scores[chunkId] as number) + (termScores[chunkId] as number);
          if (firstOccurrence) matchedTerms[chunkId] = (matchedTerms[chunkId] as number) + 1;
        } else {
          marks[chunkId] = searchGeneration;
          scores[chunkId] = termScores[chunkId] as number;
          matchedTerms[chunkId] = 1;
          touched[touchedCount] = chunkId;
          touchedCount += 1;
        }
      }
    }

    // The best numberOfResults per language passing the filter, by score and then by the order
    // found — the order of minisearch's stable sort.
    const best: Record<TicketLanguage, Candidate[]> = { ja: [], en: [] };
    for (let rank = 0; rank < touchedCount; rank += 1) {
      const chunkId = touched[rank] as number;
      // minisearch multiplies by the number of query terms matched ("quality").
      const score = (scores[chunkId] as number) * (matchedTerms[chunkId] as number);
      const kept = best[(chunks[chunkId] as Chunk).language];
      const last = kept[kept.length - 1];
      if (kept.length === numberOfResults && last !== undefined && score <= last.score) continue;
      if (!passes(chunkId)) continue;
      let position = kept.length;
      while (position > 0 && (kept[position - 1] as Candidate).score < score) position -= 1;
      kept.splice(position, 0, { id: chunkId, score, rank });
      if (kept.length > numberOfResults) kept.pop();
    }
    const matches = [...best.ja, ...best.en]
      .sort((first, second) => second.score - first.score || first.rank - second.rank)
      .map(({ id, score }) => ({
        id,
        score,
        queryTerms: [...matchesByTerm].flatMap(([term, termMatches]) =>
          termMatches.some(({ termId }) =>
            index.fields.some((field) => postingsHold(field, termId, id)),
          )
            ? [term]
            : [],
        ),
      }));
    return toRetrievalResults(matches, chunks, search, function* fillers() {
      const candidates = filter === undefined ? undefined : candidatesOf(filter);
      if (candidates === undefined) {
        for (const chunk of chunks) if (passes(chunk.id)) yield chunk;
      } else {
        for (const chunkId of candidates) if (passes(chunkId)) yield chunks[chunkId] as Chunk;
      }
    });
  };

  // Built now rather than on the first fetch by `issue_id` (the retriever's fetchByIssueIds):
  // lazily, the first fetch paid a pass over every chunk — most of a 100,000-ticket fetch p95.
  chunksWithValue(ISSUE_ID_KEY, '');
  return { chunkCount: count, search, analysis: statistics, postings: index };
}

/** The metadata key tickets are fetched by (`functions/adapters/bedrock`'s fetchByIssueIds). */
const ISSUE_ID_KEY = 'issue_id';

/** Analyses the chunks (or takes their analyses from the cache file) and lays out the postings. */
function buildFromTexts(chunks: readonly Chunk[], analysisCacheFile: string | undefined): LaidOut {
  const { keys, cache, precomputed } = prepareAnalysis(chunks, analysisCacheFile);
  const built = buildInvertedIndex(chunks, keys, cache, precomputed);
  writeCacheOf(built, analysisCacheFile, cache, 'before-return');
  return built;
}

/**
 * Writes a build's analysis cache file when anything was analysed or the file holds chunks that
 * are gone, now or in the background (`AnalysisCacheWrite`); settles once it is written.
 */
function writeCacheOf(
  built: LaidOut,
  analysisCacheFile: string | undefined,
  cache: AnalysisCache,
  analysisCacheWrite: AnalysisCacheWrite,
): Promise<void> {
  const { statistics } = built;
  if (
    analysisCacheFile === undefined ||
    (statistics.analysed === 0 && cache.size === statistics.distinct)
  ) {
    return Promise.resolve();
  }
  if (analysisCacheWrite === 'before-return') {
    const { terms, chunks: cachedChunks } = built.toCache();
    writeAnalysisCache(analysisCacheFile, terms, cachedChunks);
    return Promise.resolve();
  }
  return (async () => {
    await yieldToEventLoop(); // the index is returned (and serves) first
    const { terms, chunks: cachedChunks } = built.toCache();
    await writeAnalysisCacheInBackground(analysisCacheFile, terms, cachedChunks);
  })().catch((error: unknown) => {
    // The index serves without it; the next start analyses these chunks again.
    console.warn(`local Knowledge Base: could not write ${analysisCacheFile}: ${String(error)}`);
  });
}

/** What a build knows before it analyses: each chunk's key, the cache, and analyses made for it. */
interface PreparedAnalysis {
  readonly keys: readonly string[];
  readonly cache: AnalysisCache;
  readonly precomputed: ReadonlyMap<string, ChunkAnalysis>;
}

function prepareAnalysis(
  chunks: readonly Chunk[],
  analysisCacheFile: string | undefined,
): PreparedAnalysis {
  return {
    keys: chunks.map((chunk) => analysisKeyOf(chunk.subject, chunk.text)),
    cache:
      analysisCacheFile === undefined ? EMPTY_ANALYSIS_CACHE : readAnalysisCache(analysisCacheFile),
    precomputed: new Map(),
  };
}

/** Restored postings, checked to fit the chunks (a count that differs cannot be these). */
function restored(
  chunks: readonly Chunk[],
  postings: { readonly index: InvertedIndex; readonly distinct: number },
): { index: InvertedIndex; statistics: AnalysisStatistics } {
  for (const field of postings.index.fields) {
    if (field.lengths.length !== chunks.length || field.lengthNorms.length !== chunks.length) {
      throw new Error(
        `restored postings hold ${field.lengths.length} chunks, the documents ${chunks.length}`,
      );
    }
  }
  return {
    index: postings.index,
    statistics: { analysed: 0, reused: chunks.length, distinct: postings.distinct },
  };
}
