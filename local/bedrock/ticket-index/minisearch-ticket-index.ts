import MiniSearch from 'minisearch';
import { matchRetrievalFilter } from './match-retrieval-filter.js';
import {
  type Chunk,
  chunksOf,
  type TicketDocument,
  type TicketIndex,
  toRetrievalResults,
} from './ticket-index.js';
import { tokenizeForSearch } from './tokenize-for-search.js';

/**
 * The local Knowledge Base's first index: the same BM25+ ranking as `createTicketIndex`, by
 * minisearch, which scores every matching chunk as objects in maps (at 100,000 tickets: 239 s
 * to build, 1.46 GB of heap, Retrieve p95 1,079 ms). Kept as the reference the hand-written
 * index is proven against (test/local/bedrock/ticket-index: identical results on the sample
 * tickets) and measured against (`npm run bench:index`); nothing serves from it.
 */
export function createMinisearchTicketIndex(documents: readonly TicketDocument[]): TicketIndex {
  const chunks = chunksOf(documents);
  const miniSearch = new MiniSearch<Chunk>({
    fields: ['subject', 'text'],
    tokenize: tokenizeForSearch,
    processTerm: (term) => term, // tokenizeForSearch already normalises
  });
  miniSearch.addAll(chunks);

  return {
    chunkCount: chunks.length,
    search: (search) => {
      const { text, filter } = search;
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
      return toRetrievalResults(matches, chunks, search, () => chunks.filter(passes));
    },
  };
}
