import MiniSearch from 'minisearch';
import { LOCAL_DATA_SOURCE_ID, LOCAL_TICKET_BUCKET } from '../local-bedrock-defaults.js';
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

export type TicketLanguage = 'ja' | 'en';

interface Chunk {
  readonly id: number;
  readonly subject: string;
  readonly language: TicketLanguage;
  readonly text: string;
  readonly uri: string;
  readonly metadata: TicketMetadata;
}

// BM25 scores are unbounded; Bedrock's are similarities in 0–1. Scaling by best / (best + K)
// keeps every score below 1 and gives weak matches (small best score) low values.
const SCORE_DAMPING = 4;

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

const CJK_CHARACTER = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;

/** Japanese if the text has any kanji or kana (English tickets and questions have none). */
const languageOf = (text: string): TicketLanguage => (CJK_CHARACTER.test(text) ? 'ja' : 'en');

/**
 * The language of a retrieval query: that of its first line, the inquiry's own start — the
 * glossary expansion (`functions/chat/retrieval-query.ts`) follows on a later line, in the
 * other language on purpose.
 */
const queryLanguageOf = (text: string): TicketLanguage =>
  languageOf(text.trimStart().split('\n')[0] ?? '');

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
interface LanguageHit {
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
  const terms = new Set(queryTerms.filter((term) => languageOf(term) === language));
  if (terms.size === 0) return 1;
  if (hit === undefined) return 0;
  return new Set(hit.queryTerms.filter((term) => terms.has(term))).size / terms.size;
}

/**
 * Indexes ticket documents for BM25+ keyword search (minisearch) with Japanese segmentation
 * and CJK bigrams (`tokenizeForSearch`); the subject counts double. Japanese and English tickets
 * are ranked each on their own scale and merged (`mergeLanguages`).
 *
 * Vector search always returns its nearest neighbours; keyword search finds nothing for a query
 * without shared terms. So: without a filter, only matching chunks come back; with a filter
 * (fetching tickets by `issue_id`, often with an empty-ish query) the remaining slots are filled
 * with other chunks passing the filter, at score 0.
 */
export function createTicketIndex(documents: readonly TicketDocument[]): TicketIndex {
  const chunks: Chunk[] = documents
    .flatMap((document) => {
      const uri = document.uri ?? `s3://${LOCAL_TICKET_BUCKET}/${document.fileName}`;
      return chunkTicketDocument(document.text).map((text, part) => ({
        subject: String(document.metadata.subject ?? ''),
        language: languageOf(String(document.metadata.subject ?? '') || text),
        text,
        uri,
        metadata: {
          ...document.metadata,
          'x-amz-bedrock-kb-source-uri': uri,
          'x-amz-bedrock-kb-chunk-id': `${document.fileName}#${part + 1}`,
          'x-amz-bedrock-kb-data-source-id': LOCAL_DATA_SOURCE_ID,
        },
      }));
    })
    .map((chunk, id) => ({ id, ...chunk }));

  const miniSearch = new MiniSearch<Chunk>({
    fields: ['subject', 'text'],
    tokenize: tokenizeForSearch,
    processTerm: (term) => term, // tokenizeForSearch already normalises
  });
  miniSearch.addAll(chunks);

  const toResult = (chunk: Chunk, score: number): RetrievalResult => ({
    content: { text: chunk.text, type: 'TEXT' },
    location: { type: 'S3', s3Location: { uri: chunk.uri } },
    score: Math.round(score * 10_000) / 10_000,
    metadata: chunk.metadata,
  });

  return {
    chunkCount: chunks.length,
    search: ({ text, numberOfResults, filter }) => {
      const passes = (chunk: Chunk) =>
        filter === undefined || matchRetrievalFilter(filter, chunk.metadata);
      // Validate the filter even when nothing matches the text, as Bedrock rejects it up front.
      if (filter !== undefined) matchRetrievalFilter(filter, {});
      const matches = miniSearch.search(text, {
        boost: { subject: 2 },
        combineWith: 'OR',
        prefix: (term) => /^[a-z0-9]{4,}$/.test(term),
        filter: (hit) => passes(chunks[hit.id] as Chunk),
      });
      const bestMatch = matches[0]?.score ?? 0;
      const strength = bestMatch / (bestMatch + SCORE_DAMPING);
      const query = { language: queryLanguageOf(text), terms: tokenizeForSearch(text) };
      const hits = mergeLanguages(matches, chunks, query).slice(0, numberOfResults);
      const results = hits.map((hit) => toResult(chunks[hit.id] as Chunk, hit.score * strength));
      if (filter === undefined || results.length >= numberOfResults) return results;
      const found = new Set(hits.map((hit) => hit.id));
      const rest = chunks.filter((chunk) => !found.has(chunk.id) && passes(chunk));
      return [
        ...results,
        ...rest.slice(0, numberOfResults - results.length).map((chunk) => toResult(chunk, 0)),
      ];
    },
  };
}
