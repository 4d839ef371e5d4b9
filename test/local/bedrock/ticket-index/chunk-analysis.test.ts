import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEvalQueries } from '../../../../eval/retrieval-evaluation.js';
import { toRetrievalQuery } from '../../../../functions/chat/retrieval.js';
import {
  loadTicketDocuments,
  openKnowledgeBaseDataSource,
} from '../../../../local/bedrock/knowledge-base-data-source.js';
import {
  analyseInWorkers,
  startAnalysisPool,
} from '../../../../local/bedrock/ticket-index/chunk-analysis.js';
import {
  type BuiltTicketIndex,
  createTicketIndex,
  createTicketIndexInParallel,
  startTicketIndexBuild,
  type TicketDocument,
} from '../../../../local/bedrock/ticket-index/ticket-index.js';

const NOT_RESTRICTED = { notEquals: { key: 'restricted', value: true } };

describe('chunk analysis in worker threads', () => {
  let documents: TicketDocument[];
  let queries: string[];
  let cacheDirectory: string;

  beforeAll(async () => {
    documents = await loadTicketDocuments('data/tickets');
    queries = (await loadEvalQueries('data/eval/retrieval-queries.jsonl')).map(({ query }) =>
      toRetrievalQuery(query, { expand: true }),
    );
    cacheDirectory = await mkdtemp(join(tmpdir(), 'chunk-analysis-'));
  });
  afterAll(() => rm(cacheDirectory, { recursive: true, force: true }));

  it('builds the index a single thread builds: same postings, same answers', async () => {
    const single = createTicketIndex(documents);
    // Three workers over 171 tickets: batches interleave, so vocabularies differ per worker.
    const parallel = await createTicketIndexInParallel(documents, {
      workers: 3,
      minimumChunks: 0,
    });
    expect(parallel.analysis).toEqual(single.analysis);
    expect(parallel.postings).toEqual(single.postings);
    for (const text of queries) {
      const search = { text, numberOfResults: 8, filter: NOT_RESTRICTED };
      expect(parallel.search(search)).toEqual(single.search(search));
    }
  });

  it('writes the analysis cache a single-threaded build writes, and reuses it', async () => {
    const file = join(cacheDirectory, 'analysis.bin');
    const first = await createTicketIndexInParallel(documents, {
      analysisCacheFile: file,
      workers: 2,
      minimumChunks: 0,
    });
    expect(first.analysis).toEqual(createTicketIndex(documents).analysis); // all analysed
    const second = createTicketIndex(documents, { analysisCacheFile: file });
    expect(second.analysis.analysed).toBe(0);
    expect(second.postings).toEqual(first.postings);
  });

  it('returns every chunk its analysis, in order, whatever the batches', async () => {
    const chunks = Array.from({ length: 1_234 }, (_, serial) => ({
      subject: `件名 ${serial}`,
      text: serial % 2 === 0 ? `VPNに接続できない ${serial}` : `printer ${serial} offline`,
    }));
    const analyses = await analyseInWorkers(chunks, 2);
    expect(analyses).toHaveLength(chunks.length);
    analyses.forEach((analysis, serial) => {
      const termsOf = (field: Uint32Array | undefined) =>
        [...(field ?? [])].map((value) => analysis.termOf(Math.floor(value / 256)));
      expect(termsOf(analysis.fields[0])).toContain('件名');
      expect(termsOf(analysis.fields[1])).toContain(String(serial));
    });
  });

  it('fails the analysis when a worker fails', async () => {
    const poisoned = [{ subject: 'x', text: 'y' }, { subject: 'x' } as never];
    await expect(analyseInWorkers(poisoned, 2)).rejects.toThrow();
  });

  it('builds the same index when fed document by document, the workers starting midway', async () => {
    const single = createTicketIndex(documents);
    // The first 40 chunks wait for the threshold, the rest go to the workers as they come.
    const build = startTicketIndexBuild({ workers: 2, minimumChunks: 40 });
    for (const document of documents) build.add(document);
    const streamed = await build.finish();
    expect(streamed.analysis).toEqual(single.analysis);
    expect(streamed.postings).toEqual(single.postings);
  });

  it("opens a data source whose first start overlaps the scan with the workers: the single thread's index", async () => {
    const tickets = join(cacheDirectory, 'tickets');
    await cp('data/tickets', tickets, { recursive: true });
    const source = await openKnowledgeBaseDataSource(
      [{ directory: tickets, uriPrefix: 's3://local-tickets/' }],
      {
        indexCacheDirectory: join(cacheDirectory, 'local-index'),
        parallelAnalysis: { workers: 2, minimumChunks: 0 },
        writeCachesAfterReady: true,
      },
    );
    await source.cachesWritten();
    const single = createTicketIndex(await loadTicketDocuments(tickets));
    expect((source.index as BuiltTicketIndex).postings).toEqual(single.postings);
    for (const text of queries.slice(0, 20)) {
      const search = { text, numberOfResults: 8, filter: NOT_RESTRICTED };
      expect(source.index.search(search)).toEqual(single.search(search));
    }
  });

  it('fails a streamed analysis whose report of a batch throws, and stops its workers', async () => {
    const pool = startAnalysisPool(
      2,
      () => {
        throw new Error('layout failed');
      },
      10,
    );
    for (let serial = 0; serial < 100; serial += 1) pool.add({ subject: 's', text: `t ${serial}` });
    await expect(pool.finish()).rejects.toThrow('layout failed');
  });

  it('fails a streamed build when a worker fails', async () => {
    const pool = startAnalysisPool(2, () => {}, 1);
    pool.add({ subject: 'x', text: 'y' });
    pool.add({ subject: 'x' } as never);
    await expect(pool.finish()).rejects.toThrow();
  });
});
