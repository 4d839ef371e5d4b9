import { cp, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  loadTicketDocuments,
  openKnowledgeBaseDataSource,
} from '../../../../local/bedrock/knowledge-base-data-source.js';
import {
  fileSignatureOf,
  type IndexSnapshot,
  RACY_MARGIN_MS,
  readIndexSnapshot,
  type SnapshotDocument,
  trustsSignatureOf,
  writeIndexSnapshot,
  writeIndexSnapshotInBackground,
} from '../../../../local/bedrock/ticket-index/index-snapshot.js';
import {
  createTicketIndex,
  type TicketIndex,
} from '../../../../local/bedrock/ticket-index/ticket-index.js';

const NOT_RESTRICTED = { notEquals: { key: 'restricted', value: true } };
const QUERIES = [
  'Salesforceにログインできない パスワード',
  'VPN gateway not responding',
  'プリンターが一覧に出てこない',
  'Outlook の予定表を共有したい',
  'password reset locked out',
  'quokkaphone',
];
const answersOf = (index: TicketIndex) =>
  QUERIES.map((text) => index.search({ text, numberOfResults: 8, filter: NOT_RESTRICTED }));
const SNAPSHOT = 'ticket-index-snapshot.bin';
/** One ticket folder per test, all copied before one wait until the racy margin has passed. */
const FOLDERS = 7;

/** Whether a scan begun now would trust the signature of every file under `directories`. */
async function allTrustedNow(directories: readonly string[]): Promise<boolean> {
  const scannedAtMs = Date.now();
  for (const directory of directories) {
    const entries = await readdir(directory, { recursive: true, withFileTypes: true });
    for (const entry of entries.filter((found) => found.isFile())) {
      const signature = fileSignatureOf(await stat(join(entry.parentPath, entry.name)));
      if (!trustsSignatureOf(signature, scannedAtMs)) return false;
    }
  }
  return true;
}

/**
 * The snapshot trusts a file's signature only when its last change lies more than the racy
 * margin before the scan: the folders are copied, then the test waits once until the snapshot's
 * own rule trusts every copied file, so the files are "old" as a desk's ticket history is, and
 * each test changes what it changes now.
 */
describe('openKnowledgeBaseDataSource with an index snapshot', () => {
  let root: string;
  const folderOf = (test: number) => ({
    tickets: join(root, `tickets-${test}`),
    cache: join(root, `cache-${test}`),
  });
  const open = (test: number) => {
    const { tickets, cache } = folderOf(test);
    return openKnowledgeBaseDataSource([{ directory: tickets, uriPrefix: 's3://local-tickets/' }], {
      indexCacheDirectory: cache,
    });
  };
  /** The answers of an index built from the folder's texts, no cache involved. */
  const uncachedAnswers = async (test: number) =>
    answersOf(createTicketIndex(await loadTicketDocuments(folderOf(test).tickets)));
  /** The tickets that match the text (not those that only fill the slots at score 0). */
  const issueIdsOf = (index: TicketIndex, text: string) =>
    index
      .search({ text, numberOfResults: 3, filter: NOT_RESTRICTED })
      .filter((result) => result.score > 0)
      .map((result) => result.metadata.issue_id);

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'index-snapshot-'));
    for (let test = 0; test < FOLDERS; test += 1) {
      await cp('data/tickets', folderOf(test).tickets, { recursive: true });
    }
    const copied = Array.from({ length: FOLDERS }, (_, test) => folderOf(test).tickets);
    await vi.waitFor(
      async () => {
        if (!(await allTrustedNow(copied))) throw new Error('a copied file is still too recent');
      },
      { timeout: RACY_MARGIN_MS * 10, interval: 100 },
    );
  }, 60_000);
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('restarts from the snapshot without reading a document or analysing a chunk, answering as the uncached index', async () => {
    const first = await open(0);
    expect(first.build).toMatchObject({ documentsRead: 171, postingsReused: false });
    expect(first.build.chunksAnalysed).toBe(first.index.chunkCount);
    const restarted = await open(0);
    expect(restarted.build).toEqual({
      documents: 171,
      documentsRead: 0,
      chunksAnalysed: 0,
      postingsReused: true,
    });
    expect(answersOf(restarted.index)).toEqual(await uncachedAnswers(0));
    expect(answersOf(restarted.index)).toEqual(answersOf(first.index));
    expect(answersOf(restarted.index)[0]?.length).toBeGreaterThan(0);
  });

  it('reads and analyses again a document changed to the same size with its old times put back', async () => {
    await open(1);
    const file = join(folderOf(1).tickets, '1001.md');
    const before = await stat(file);
    const text = await readFile(file, 'utf8');
    // Same length in bytes, other words: only the status-change time and content differ.
    const changed = text.replace(/Salesforce/, 'Quokkaphon');
    expect(Buffer.byteLength(changed)).toBe(before.size);
    await writeFile(file, changed);
    await utimes(file, before.atime, before.mtime);
    const restarted = await open(1);
    expect(restarted.build).toMatchObject({
      documentsRead: 1,
      chunksAnalysed: 1,
      postingsReused: false,
    });
    expect(issueIdsOf(restarted.index, 'quokkaphon')).toEqual(['1001']);
    expect(answersOf(restarted.index)).toEqual(await uncachedAnswers(1));
  });

  it('honours a sidecar that now restricts a ticket: its old metadata is not served', async () => {
    const first = await open(2);
    expect(issueIdsOf(first.index, 'Salesforceにログインできない')).toContain('1001');
    const sidecar = join(folderOf(2).tickets, '1001.md.metadata.json');
    const parsed = JSON.parse(await readFile(sidecar, 'utf8'));
    parsed.metadataAttributes.restricted = true;
    await writeFile(sidecar, JSON.stringify(parsed));
    const restarted = await open(2);
    expect(restarted.build).toMatchObject({ documentsRead: 1, chunksAnalysed: 0 });
    expect(issueIdsOf(restarted.index, 'Salesforceにログインできない')).not.toContain('1001');
    expect(answersOf(restarted.index)).toEqual(await uncachedAnswers(2));
  });

  it('analyses only an added document, and forgets a removed one', async () => {
    await open(3);
    const { tickets } = folderOf(3);
    await writeFile(join(tickets, '9001.md'), '# Quokkaphone が同期しない\n\n再起動で直った。');
    await writeFile(
      join(tickets, '9001.md.metadata.json'),
      JSON.stringify({
        metadataAttributes: { issue_id: '9001', subject: 'Quokkaphone が同期しない' },
      }),
    );
    await rm(join(tickets, '1002.md'));
    await rm(join(tickets, '1002.md.metadata.json'));
    const restarted = await open(3);
    expect(restarted.build).toMatchObject({
      documents: 171,
      documentsRead: 1,
      chunksAnalysed: 1,
      postingsReused: false,
    });
    expect(issueIdsOf(restarted.index, 'quokkaphone')).toEqual(['9001']);
    const fetched = restarted.index.search({
      text: '#1002',
      numberOfResults: 3,
      filter: { andAll: [{ in: { key: 'issue_id', value: ['1002'] } }, NOT_RESTRICTED] },
    });
    expect(fetched).toEqual([]);
    expect(answersOf(restarted.index)).toEqual(await uncachedAnswers(3));
  });

  it('reads again a file that changed within the racy margin of the scan that recorded it', async () => {
    const file = join(folderOf(4).tickets, '1003.md');
    // Changed just before the first scan: its signature is recorded but not trusted, so every
    // later start reads it until the change lies further back than the margin.
    await writeFile(file, `${await readFile(file, 'utf8')}\nQuokkaphone`);
    await open(4);
    const restarted = await open(4);
    expect(restarted.build).toMatchObject({ documentsRead: 1, chunksAnalysed: 0 });
    expect(restarted.build.postingsReused).toBe(true);
    expect(issueIdsOf(restarted.index, 'quokkaphone')).toEqual(['1003']);
  });

  it('rebuilds from the folder when the snapshot is damaged, truncated or for other folders', async () => {
    const { cache, tickets } = folderOf(5);
    await open(5);
    const file = join(cache, SNAPSHOT);
    const bytes = await readFile(file);
    expect(
      readIndexSnapshot(file, [{ directory: tickets, uriPrefix: 's3://local-tickets/' }]),
    ).toBeDefined();
    expect(
      readIndexSnapshot(file, [{ directory: tickets, uriPrefix: 's3://other/' }]),
    ).toBeUndefined();
    await writeFile(file, bytes.subarray(0, bytes.length - 100));
    expect(
      readIndexSnapshot(file, [{ directory: tickets, uriPrefix: 's3://local-tickets/' }]),
    ).toBeUndefined();
    const afterTruncation = await open(5);
    expect(afterTruncation.build).toMatchObject({ documentsRead: 171, postingsReused: false });
    expect(answersOf(afterTruncation.index)).toEqual(await uncachedAnswers(5));
    // Damaged inside a section (the magic and header intact): a posting's chunk id out of range.
    const intact = await readFile(file);
    const damaged = Buffer.from(intact);
    const headerLength = damaged.readUInt32LE(damaged.length - 8);
    const header = JSON.parse(
      damaged.toString('utf8', damaged.length - 8 - headerLength, damaged.length - 8),
    ) as { sections: Record<string, { offset: number; bytes: number }> };
    const chunkIds = header.sections.chunkIds1 as { offset: number };
    damaged.writeInt32LE(1_000_000, chunkIds.offset);
    await writeFile(file, damaged);
    const afterDamage = await open(5);
    expect(afterDamage.build).toMatchObject({ documentsRead: 171, postingsReused: false });
    expect(answersOf(afterDamage.index)).toEqual(await uncachedAnswers(5));
  });

  it('keeps serving through a sync: an unchanged folder reuses the postings, a change is found', async () => {
    const source = await open(6);
    const unchanged = await source.sync();
    expect(unchanged.statistics.numberOfModifiedDocumentsIndexed).toBe(0);
    expect(source.build).toMatchObject({ documentsRead: 0, postingsReused: true });
    const file = join(folderOf(6).tickets, '1004.md');
    await writeFile(file, '# 件名\n\nQuokkaphone の同期が止まる。');
    const changed = await source.sync();
    expect(changed.statistics.numberOfModifiedDocumentsIndexed).toBe(1);
    expect(source.build).toMatchObject({ documentsRead: 1, chunksAnalysed: 1 });
    expect(issueIdsOf(source.index, 'quokkaphone')).toEqual(['1004']);
    expect(answersOf(source.index)).toEqual(await uncachedAnswers(6));
  });
});

describe('writeIndexSnapshotInBackground', () => {
  it('writes the bytes writeIndexSnapshot writes, in pieces, for more documents than a piece holds', async () => {
    const root = await mkdtemp(join(tmpdir(), 'index-snapshot-pieces-'));
    try {
      // 12,000 documents: three pieces of document metadata, several of texts.
      const documents: SnapshotDocument[] = Array.from({ length: 12_000 }, (_, serial) => ({
        uri: `s3://local-tickets/${serial}.md`,
        fileName: `${serial}.md`,
        text: `# 件名 ${serial}\n\nprinter ${serial} offline; プリンターが ${'応答しない '.repeat(serial % 7)}`,
        metadata: {
          issue_id: String(serial),
          subject: `件名 ${serial}`,
          restricted: serial % 5 === 0,
        },
        textHash: `text-${serial}`,
        metadataHash: `metadata-${serial}`,
        textSignature: `1:2:3:${serial}`,
        sidecarSignature: `4:5:6:${serial}`,
      }));
      const index = createTicketIndex(documents);
      const folders = [{ directory: root, uriPrefix: 's3://local-tickets/' }];
      const snapshot: IndexSnapshot = {
        folders,
        scannedAtMs: 1_700_000_000_000,
        documents,
        postings: index.postings,
        distinct: index.analysis.distinct,
      };
      writeIndexSnapshot(join(root, 'now.bin'), snapshot);
      await writeIndexSnapshotInBackground(join(root, 'background.bin'), snapshot);
      const written = await readFile(join(root, 'background.bin'));
      expect(written.equals(await readFile(join(root, 'now.bin')))).toBe(true);
      const read = readIndexSnapshot(join(root, 'background.bin'), folders);
      expect(read?.documents).toEqual(documents);
      expect(read?.postings.fields).toEqual(index.postings.fields);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
