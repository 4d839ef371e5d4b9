import MiniSearch from 'minisearch';
import { LOCAL_TICKET_BUCKET } from '../local-bedrock-defaults.js';
import { chunkTicketDocument } from './chunk-ticket-document.js';
import type { TicketDocument } from './load-ticket-documents.js';
import { matchRetrievalFilter, type TicketMetadata } from './match-retrieval-filter.js';
import { tokenizeForSearch } from './tokenize-for-search.js';

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

interface Chunk {
  readonly id: number;
  readonly subject: string;
  readonly text: string;
  readonly uri: string;
  readonly metadata: TicketMetadata;
}

// BM25 scores are unbounded; Bedrock's are similarities in 0–1. Dividing by (best + K) keeps
// the ranking, keeps every score below 1, and gives weak matches (small best score) low values.
const SCORE_DAMPING = 4;

/**
 * Indexes ticket documents for BM25+ keyword search (minisearch) with Japanese segmentation
 * and CJK bigrams (`tokenizeForSearch`); the subject counts double.
 *
 * Vector search always returns its nearest neighbours; keyword search finds nothing for a query
 * without shared terms. So: without a filter, only matching chunks come back; with a filter
 * (fetching tickets by `issue_id`, often with an empty-ish query) the remaining slots are filled
 * with other chunks passing the filter, at score 0.
 */
export function createTicketIndex(documents: readonly TicketDocument[]): TicketIndex {
  const chunks: Chunk[] = documents
    .flatMap((document) => {
      const uri = `s3://${LOCAL_TICKET_BUCKET}/${document.fileName}`;
      return chunkTicketDocument(document.text).map((text, part) => ({
        subject: String(document.metadata.subject ?? ''),
        text,
        uri,
        metadata: {
          ...document.metadata,
          'x-amz-bedrock-kb-source-uri': uri,
          'x-amz-bedrock-kb-chunk-id': `${document.fileName}#${part + 1}`,
          'x-amz-bedrock-kb-data-source-id': 'LOCALDS001',
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
      const hits = miniSearch
        .search(text, {
          boost: { subject: 2 },
          combineWith: 'OR',
          prefix: (term) => /^[a-z0-9]{4,}$/.test(term),
          filter: (hit) => passes(chunks[hit.id] as Chunk),
        })
        .slice(0, numberOfResults);
      const best = hits[0]?.score ?? 0;
      const results = hits.map((hit) =>
        toResult(chunks[hit.id] as Chunk, hit.score / (best + SCORE_DAMPING)),
      );
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
