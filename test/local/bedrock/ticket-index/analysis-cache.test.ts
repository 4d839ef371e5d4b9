import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  loadTicketDocuments,
  openKnowledgeBaseDataSource,
} from '../../../../local/bedrock/knowledge-base-data-source.js';
import { readIndexSnapshot } from '../../../../local/bedrock/ticket-index/index-snapshot.js';
import {
  createTicketIndex,
  type TicketDocument,
} from '../../../../local/bedrock/ticket-index/ticket-index.js';

const NOT_RESTRICTED = { notEquals: { key: 'restricted', value: true } };
const QUERIES = [
  'Salesforceにログインできない パスワード',
  'VPN gateway not responding',
  'プリンターが一覧に出てこない',
  'Outlook の予定表を共有したい',
  'password reset locked out',
];
const answersOf = (index: ReturnType<typeof createTicketIndex>) =>
  QUERIES.map((text) => index.search({ text, numberOfResults: 8, filter: NOT_RESTRICTED }));

describe('createTicketIndex with an analysis cache file', () => {
  let directory: string;
  let cacheFile: string;
  let documents: TicketDocument[];

  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), 'analysis-cache-'));
    cacheFile = join(directory, 'cache', 'ticket-index-analysis.bin');
    documents = await loadTicketDocuments('data/tickets');
  });
  afterEach(() => rm(directory, { recursive: true, force: true }));

  it('analyses every chunk on the first start and none on the second, answering identically', () => {
    const uncached = createTicketIndex(documents);
    const first = createTicketIndex(documents, { analysisCacheFile: cacheFile });
    expect(first.analysis).toMatchObject({ analysed: first.chunkCount, reused: 0 });
    const second = createTicketIndex(documents, { analysisCacheFile: cacheFile });
    expect(second.analysis).toMatchObject({ analysed: 0, reused: second.chunkCount });
    expect(answersOf(second)).toEqual(answersOf(uncached));
    expect(answersOf(first)).toEqual(answersOf(uncached));
  });

  it('analyses a changed document again, and finds it by its new text only', () => {
    createTicketIndex(documents, { analysisCacheFile: cacheFile });
    const changed = documents.map((document) =>
      document.fileName === '1001.md'
        ? { ...document, text: '# 件名\n\nQuokkaphone の同期が止まる。' }
        : document,
    );
    const index = createTicketIndex(changed, { analysisCacheFile: cacheFile });
    expect(index.analysis).toMatchObject({ analysed: 1, reused: index.chunkCount - 1 });
    const found = index.search({ text: 'quokkaphone', numberOfResults: 3 });
    expect(found.map((result) => result.metadata.issue_id)).toEqual(['1001']);
    expect(answersOf(index)).toEqual(answersOf(createTicketIndex(changed)));
    // The rewritten cache now holds the new text's analysis: a third start analyses nothing.
    const again = createTicketIndex(changed, { analysisCacheFile: cacheFile });
    expect(again.analysis.analysed).toBe(0);
    expect(again.search({ text: 'quokkaphone', numberOfResults: 3 })).toEqual(found);
  });

  it('drops the entries of deleted documents when it rewrites the file', async () => {
    createTicketIndex(documents, { analysisCacheFile: cacheFile });
    const before = (await readFile(cacheFile)).length;
    const fewer = documents.slice(0, 10);
    expect(createTicketIndex(fewer, { analysisCacheFile: cacheFile }).analysis.analysed).toBe(0);
    expect((await readFile(cacheFile)).length).toBeLessThan(before / 5);
    expect(createTicketIndex(documents, { analysisCacheFile: cacheFile }).analysis.reused).toBe(10);
  });

  it('treats a damaged or truncated file as no cache and answers correctly', async () => {
    const uncached = answersOf(createTicketIndex(documents));
    createTicketIndex(documents, { analysisCacheFile: cacheFile });
    const bytes = await readFile(cacheFile);
    await writeFile(cacheFile, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const truncated = createTicketIndex(documents, { analysisCacheFile: cacheFile });
    expect(truncated.analysis.reused).toBe(0);
    expect(answersOf(truncated)).toEqual(uncached);
    await writeFile(cacheFile, 'not a cache');
    const damaged = createTicketIndex(documents, { analysisCacheFile: cacheFile });
    expect(damaged.analysis.reused).toBe(0);
    expect(answersOf(damaged)).toEqual(uncached);
  });
});

describe('openKnowledgeBaseDataSource with an index cache directory', () => {
  it('keeps the cache there and answers from the new text after a sync', async () => {
    await withSampleTicketsCopy(async ({ tickets, cacheDirectory, folders }) => {
      const source = await openKnowledgeBaseDataSource(folders, {
        indexCacheDirectory: cacheDirectory,
      });
      expect(existsSync(join(cacheDirectory, 'ticket-index-analysis.bin'))).toBe(true);
      expect(source.index.search({ text: 'quokkaphone', numberOfResults: 3 })).toEqual([]);
      await writeFile(join(tickets, '1001.md'), '# 件名\n\nQuokkaphone の同期が止まる。');
      const { statistics } = await source.sync();
      expect(statistics.numberOfModifiedDocumentsIndexed).toBe(1);
      const found = source.index.search({ text: 'quokkaphone', numberOfResults: 3 });
      expect(found.map((result) => result.metadata.issue_id)).toEqual(['1001']);
      // A restart reads the rewritten cache and answers the same.
      const restarted = await openKnowledgeBaseDataSource(folders, {
        indexCacheDirectory: cacheDirectory,
      });
      expect(restarted.index.search({ text: 'quokkaphone', numberOfResults: 3 })).toEqual(found);
    });
  });
});

describe('openKnowledgeBaseDataSource writing its caches after ready', () => {
  it('answers before the caches are written, then writes both whole for the next start', async () => {
    await withSampleTicketsCopy(async ({ tickets, cacheDirectory, folders }) => {
      const options = { indexCacheDirectory: cacheDirectory, writeCachesAfterReady: true };
      const uncached = answersOf(createTicketIndex(await loadTicketDocuments(tickets)));
      const source = await openKnowledgeBaseDataSource(folders, options);
      // Ready: it answers, and nothing is on disk yet (the writes wait for the next turn).
      expect(existsSync(join(cacheDirectory, 'ticket-index-analysis.bin'))).toBe(false);
      expect(answersOf(source.index as ReturnType<typeof createTicketIndex>)).toEqual(uncached);
      await source.cachesWritten();
      // Both files in place, no temporary file left, the snapshot complete.
      expect((await readdir(cacheDirectory)).sort()).toEqual([
        'ticket-index-analysis.bin',
        'ticket-index-snapshot.bin',
      ]);
      const snapshot = readIndexSnapshot(
        join(cacheDirectory, 'ticket-index-snapshot.bin'),
        folders,
      );
      expect(snapshot?.documents).toHaveLength(171);
      // A restart analyses nothing (the files were copied just now, so they are read again:
      // within the racy margin their signatures are not trusted) and answers the same.
      const restarted = await openKnowledgeBaseDataSource(folders, options);
      expect(restarted.build.chunksAnalysed).toBe(0);
      expect(answersOf(restarted.index as ReturnType<typeof createTicketIndex>)).toEqual(uncached);
      await restarted.cachesWritten();
    });
  });
});

/** Runs `test` on a copy of the sample tickets in a temporary folder (removed after), beside a cache folder. */
async function withSampleTicketsCopy(
  test: (copy: {
    tickets: string;
    cacheDirectory: string;
    folders: { directory: string; uriPrefix: string }[];
  }) => Promise<void>,
): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), 'data-source-cache-'));
  try {
    const tickets = join(root, 'tickets');
    await cp('data/tickets', tickets, { recursive: true });
    await test({
      tickets,
      cacheDirectory: join(root, 'local-index'),
      folders: [{ directory: tickets, uriPrefix: 's3://local-tickets/' }],
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
