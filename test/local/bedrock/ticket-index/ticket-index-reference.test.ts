import { beforeAll, describe, expect, it } from 'vitest';
import { loadEvalQueries } from '../../../../eval/retrieval-evaluation.js';
import { toRetrievalQuery } from '../../../../functions/chat/retrieval.js';
import { loadTicketDocuments } from '../../../../local/bedrock/knowledge-base-data-source.js';
import { createMinisearchTicketIndex } from '../../../../local/bedrock/ticket-index/minisearch-ticket-index.js';
import {
  createTicketIndex,
  type TicketIndex,
  type TicketSearch,
} from '../../../../local/bedrock/ticket-index/ticket-index.js';

// The filters the product sends (functions/adapters/bedrock/knowledge-base-retriever.ts).
const NOT_RESTRICTED = { notEquals: { key: 'restricted', value: true } };
const byIssueIds = (issueIds: string[]) => ({
  andAll: [{ in: { key: 'issue_id', value: issueIds } }, NOT_RESTRICTED],
});

describe('createTicketIndex ranks the sample tickets exactly as its minisearch reference', () => {
  let reference: TicketIndex;
  let index: TicketIndex;
  let searches: TicketSearch[];

  beforeAll(async () => {
    const documents = await loadTicketDocuments('data/tickets');
    reference = createMinisearchTicketIndex(documents);
    index = createTicketIndex(documents);
    const queries = await loadEvalQueries('data/eval/retrieval-queries.jsonl');
    searches = queries.flatMap(({ query }) =>
      [false, true].flatMap((expand) => {
        const text = toRetrievalQuery(query, { expand });
        return [
          { text, numberOfResults: 8, filter: NOT_RESTRICTED },
          { text, numberOfResults: 100 },
          { text, numberOfResults: 1, filter: NOT_RESTRICTED },
        ];
      }),
    );
    searches.push(
      { text: '#1001 #1002', numberOfResults: 5, filter: byIssueIds(['1001', '1002']) },
      { text: '#9999', numberOfResults: 5, filter: byIssueIds(['9999']) },
      {
        text: 'printer',
        numberOfResults: 5,
        filter: { equals: { key: 'category', value: 'プリンター' } },
      },
      { text: 'zzzz-no-such-term', numberOfResults: 5 },
      { text: '', numberOfResults: 3, filter: NOT_RESTRICTED },
    );
  }, 120_000);

  it('has the same chunks', () => {
    expect(index.chunkCount).toBe(reference.chunkCount);
  });

  it('answers every evaluation query and ticket fetch with the same results, scores and order', () => {
    expect(searches.length).toBeGreaterThan(1000);
    for (const search of searches) {
      expect({ search, results: index.search(search) }).toEqual({
        search,
        results: reference.search(search),
      });
    }
  });

  it('rejects a malformed filter as the reference does, even when nothing matches', () => {
    const search = { text: 'zzzz', numberOfResults: 3, filter: { nope: {} } };
    expect(() => reference.search(search)).toThrow('Unknown filter operator: nope');
    expect(() => index.search(search)).toThrow('Unknown filter operator: nope');
  });
});
