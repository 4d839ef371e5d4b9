import { createHash, randomUUID } from 'node:crypto';
import { DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketSyncTable } from '../../functions/adapters/dynamodb/table-definitions.js';
import { createTicketSyncStore } from '../../functions/adapters/dynamodb/ticket-sync-store.js';
import type { KnowledgeDocuments } from '../../functions/knowledge/ports.js';
import {
  LeaseLostError,
  type PulledPage,
  SourceAuthError,
  type SyncedPage,
  type TicketSource,
  type TicketSyncStore,
} from '../../functions/ticket-sync/ports.js';
import {
  lagSeconds,
  runTicketSync,
  type TicketSyncRun,
} from '../../functions/ticket-sync/run-ticket-sync.js';
import { createTable } from '../../local/create-tables.js';
import { createTestClient } from '../support/dynamodb-test-tables.js';

/** A record of the fake system: resolved ones become tickets, others are removed. */
interface FakeRecord {
  readonly id: string;
  readonly text: string;
  readonly resolved: boolean;
  readonly changedAt: string;
}
interface FakePage extends PulledPage {
  readonly records: readonly FakeRecord[];
}

/** A ticket system holding `records`, paged `pageSize` at a time in change order; the cursor is a change time. */
function fakeSystem(pageSize: number) {
  const records = new Map<string, FakeRecord>();
  let failWith: Error | undefined;
  const source: TicketSource<FakePage> = {
    async *pullChanged(cursor) {
      if (failWith) throw failWith;
      const changed = [...records.values()]
        .filter((record) => cursor === undefined || record.changedAt > cursor)
        .sort((a, b) => a.changedAt.localeCompare(b.changedAt));
      for (let start = 0; start < changed.length; start += pageSize) {
        const page = changed.slice(start, start + pageSize);
        const last = page[page.length - 1] as FakeRecord;
        yield { records: page, cursor: last.changedAt, newestChange: last.changedAt };
      }
    },
    async *listIds() {
      if (failWith) throw failWith;
      yield [...records.keys()];
    },
  };
  return {
    source,
    records,
    failWith(error: Error | undefined) {
      failWith = error;
    },
  };
}

function renderPage(page: FakePage): SyncedPage {
  const resolved = page.records.filter((record) => record.resolved);
  return {
    tickets: resolved.map((record) => {
      const document = `# ${record.id}\n\n${record.text}\n`;
      const sidecar = JSON.stringify({ metadataAttributes: { issue_id: record.id } });
      return {
        issueId: record.id,
        files: {
          documentName: `${record.id}.md`,
          sidecarName: `${record.id}.md.metadata.json`,
          document,
          sidecar,
        },
        hash: createHash('sha256').update(document).update('\0').update(sidecar).digest('hex'),
      };
    }),
    removedIds: page.records.filter((record) => !record.resolved).map((record) => record.id),
    skipped: { notResolved: page.records.length - resolved.length },
    scrubbed: { email: resolved.length },
  };
}

/** The bucket: object names to text, and every write in order. */
function fakeBucket() {
  const objects = new Map<string, string>();
  const writes: string[] = [];
  let syncs = 0;
  let failOnWrite: string | undefined;
  const documents: Pick<KnowledgeDocuments, 'write' | 'remove' | 'startSync'> = {
    async write(files) {
      if (files.documentName === failOnWrite) throw new Error('the function was killed');
      objects.set(files.sidecarName, files.sidecar);
      objects.set(files.documentName, files.document);
      writes.push(files.documentName);
    },
    async remove(names) {
      objects.delete(names.documentName);
      objects.delete(names.sidecarName);
    },
    async startSync() {
      syncs += 1;
      return syncs % 2 === 1 ? 'started' : 'pending';
    },
  };
  return {
    documents,
    objects,
    writes,
    syncs: () => syncs,
    failOnWrite(name: string | undefined) {
      failOnWrite = name;
    },
  };
}

const at = (minute: number) => new Date(Date.UTC(2026, 11, 7, 9, minute)).toISOString();

describe('the deployed ticket sync on DynamoDB Local', () => {
  let client: DynamoDBClient;
  let tableName: string;
  let store: TicketSyncStore;

  beforeAll(async () => {
    client = createTestClient().client;
    tableName = `ticket-sync-${randomUUID().slice(0, 8)}-${ticketSyncTable.baseName}`;
    await createTable(client, tableName, ticketSyncTable);
    store = createTicketSyncStore({
      documents: DynamoDBDocumentClient.from(client),
      tableName,
      backoff: async () => {},
    });
  });

  afterAll(async () => {
    await client.send(new DeleteTableCommand({ TableName: tableName })).catch(() => undefined);
    client.destroy();
  });

  /** A run of `sourceId` with a clock at `now` and `remaining` ms of time left. */
  function runOf(
    sourceId: string,
    system: ReturnType<typeof fakeSystem>,
    bucket: ReturnType<typeof fakeBucket>,
    options: { mode?: 'pull' | 'reconcile'; remaining?: () => number; marks?: Date[] } = {},
  ): TicketSyncRun<FakePage> {
    return {
      sourceId,
      mode: options.mode ?? 'pull',
      holder: randomUUID(),
      source: system.source,
      renderPage,
      store,
      documents: bucket.documents,
      syncBacklog: {
        async markPending(when) {
          options.marks?.push(when);
        },
      },
      now: () => new Date(Date.UTC(2026, 11, 7, 10, 0)),
      remainingMs: options.remaining ?? (() => 900_000),
      stopMarginMs: 120_000,
      parallelWrites: 4,
    };
  }

  it('lets one run hold a source’s lease: an overlapping run is held off, a run past the lease loses it', async () => {
    const lease = { sourceId: 'lease-test', holder: 'run-a' };
    const now = new Date(Date.UTC(2026, 11, 7, 10, 0));
    const until = new Date(now.getTime() + 60_000);
    expect(await store.claim({ ...lease, now, until })).toEqual({ cursor: undefined });
    await store.advance(lease, 'c1');
    expect(await store.claim({ sourceId: 'lease-test', holder: 'run-b', now, until })).toBe('held');
    // Run A died without releasing: once its lease ran out, B takes over at A's cursor.
    const later = new Date(until.getTime() + 1);
    expect(
      await store.claim({
        sourceId: 'lease-test',
        holder: 'run-b',
        now: later,
        until: new Date(later.getTime() + 60_000),
      }),
    ).toEqual({ cursor: 'c1' });
    await expect(store.advance(lease, 'c2')).rejects.toBeInstanceOf(LeaseLostError);
    await store.release(lease); // not A's any more: leaves B's lease alone
    expect(await store.claim({ sourceId: 'lease-test', holder: 'run-c', now: later, until })).toBe(
      'held',
    );
    await store.release({ sourceId: 'lease-test', holder: 'run-b' });
    expect(
      await store.claim({ sourceId: 'lease-test', holder: 'run-c', now: later, until }),
    ).toEqual({ cursor: 'c1' });
  });

  it('stops before the time limit and resumes at the cursor: every ticket written once, none lost', async () => {
    const system = fakeSystem(5);
    for (let minute = 0; minute < 50; minute++) {
      const id = `INC${String(minute).padStart(7, '0')}`;
      system.records.set(id, { id, text: `fix ${minute}`, resolved: true, changedAt: at(minute) });
    }
    const bucket = fakeBucket();
    let remaining = 900_000;
    let pagesTaken = 0;
    const first = await runTicketSync({
      ...runOf('resume', system, bucket),
      renderPage: (page) => {
        // Four pages in, the time limit draws near.
        pagesTaken += 1;
        if (pagesTaken === 4) remaining = 100_000;
        return renderPage(page);
      },
      remainingMs: () => remaining,
    });
    expect(first).toMatchObject({ outcome: 'stopped_for_time', pages: 4, added: 20 });
    expect(first.status?.lastOutcome).toBe('stopped_for_time');
    // Not caught up: fresh as of the newest change written, not the run's start.
    expect(first.status?.freshAsOf).toBe(at(19));

    const second = await runTicketSync(runOf('resume', system, bucket));
    expect(second).toMatchObject({ outcome: 'done', pages: 6, added: 30, changed: 0 });
    expect(bucket.writes).toHaveLength(50);
    expect(new Set(bucket.writes).size).toBe(50);
    expect(bucket.objects.size).toBe(100);
    expect(second.status?.freshAsOf).toBe(new Date(Date.UTC(2026, 11, 7, 10, 0)).toISOString());
    expect(lagSeconds(second.status, new Date(Date.UTC(2026, 11, 7, 10, 15)))).toBe(900);
  });

  it('repeats the page a killed run was writing, and no other', async () => {
    const system = fakeSystem(4);
    for (let minute = 0; minute < 12; minute++) {
      const id = `INC${String(minute).padStart(7, '0')}`;
      system.records.set(id, { id, text: `fix ${minute}`, resolved: true, changedAt: at(minute) });
    }
    const bucket = fakeBucket();
    // Dies in the middle of page 2 (tickets 4–7), after ticket 4 was written.
    bucket.failOnWrite('INC0000006.md');
    await expect(
      runTicketSync({ ...runOf('killed', system, bucket), parallelWrites: 1 }),
    ).rejects.toThrow(/killed/);
    expect(bucket.writes).toEqual([
      'INC0000000.md',
      'INC0000001.md',
      'INC0000002.md',
      'INC0000003.md',
      'INC0000004.md',
      'INC0000005.md',
    ]);
    const failed = (await store.readStatus(['killed'])).get('killed');
    expect(failed).toMatchObject({
      lastOutcome: 'failed',
      lastError: 'Error: the function was killed',
    });
    expect(failed?.lastSuccessAt).toBeUndefined();

    bucket.failOnWrite(undefined);
    const resumed = await runTicketSync({ ...runOf('killed', system, bucket), parallelWrites: 1 });
    expect(resumed).toMatchObject({ outcome: 'done', pages: 2, added: 8 });
    // Page 2 again (its hashes were never recorded), then page 3: same objects, nothing missing.
    expect(bucket.writes.slice(6)).toEqual([
      'INC0000004.md',
      'INC0000005.md',
      'INC0000006.md',
      'INC0000007.md',
      'INC0000008.md',
      'INC0000009.md',
      'INC0000010.md',
      'INC0000011.md',
    ]);
    expect(bucket.objects.size).toBe(24);
  });

  it('writes only changed tickets, removes reopened ones, and starts one sync per run (or marks it owed)', async () => {
    const system = fakeSystem(10);
    for (let minute = 0; minute < 10; minute++) {
      const id = `INC${String(minute).padStart(7, '0')}`;
      system.records.set(id, { id, text: `fix ${minute}`, resolved: true, changedAt: at(minute) });
    }
    const bucket = fakeBucket();
    const marks: Date[] = [];
    const first = await runTicketSync(runOf('changes', system, bucket, { marks }));
    expect(first).toMatchObject({ added: 10, ingestion: 'started' });

    // Five records change (one only in a field the document does not show), one is reopened.
    for (let minute = 0; minute < 5; minute++) {
      const id = `INC${String(minute).padStart(7, '0')}`;
      const text = minute === 0 ? 'fix 0' : `better fix ${minute}`;
      system.records.set(id, { id, text, resolved: true, changedAt: at(20 + minute) });
    }
    system.records.set('INC0000009', {
      id: 'INC0000009',
      text: 'fix 9',
      resolved: false,
      changedAt: at(30),
    });
    const writesBefore = bucket.writes.length;
    const second = await runTicketSync(runOf('changes', system, bucket, { marks }));
    expect(second).toMatchObject({
      outcome: 'done',
      added: 0,
      changed: 4,
      unchanged: 1,
      removed: 1,
      skipped: { notResolved: 1 },
      scrubbed: { email: 5 },
      ingestion: 'owed',
    });
    expect(bucket.writes.length - writesBefore).toBe(4);
    expect(bucket.objects.has('INC0000009.md')).toBe(false);
    expect(marks).toHaveLength(1);

    // Nothing changed since: no write, no sync.
    const third = await runTicketSync(runOf('changes', system, bucket, { marks }));
    expect(third).toMatchObject({ pages: 0, added: 0, changed: 0, removed: 0, ingestion: 'none' });
    expect(bucket.syncs()).toBe(2);
  });

  it('reconciles: removes what the system no longer lists, and refuses an empty listing', async () => {
    const system = fakeSystem(10);
    for (let minute = 0; minute < 6; minute++) {
      const id = `INC${String(minute).padStart(7, '0')}`;
      system.records.set(id, { id, text: `fix ${minute}`, resolved: true, changedAt: at(minute) });
    }
    const bucket = fakeBucket();
    await runTicketSync(runOf('reconcile', system, bucket));
    system.records.delete('INC0000002');
    const reconciled = await runTicketSync(
      runOf('reconcile', system, bucket, { mode: 'reconcile' }),
    );
    expect(reconciled).toMatchObject({ outcome: 'done', mode: 'reconcile', removed: 1 });
    expect(bucket.objects.has('INC0000002.md')).toBe(false);
    expect(bucket.objects.size).toBe(10);

    system.records.clear();
    await expect(
      runTicketSync(runOf('reconcile', system, bucket, { mode: 'reconcile' })),
    ).rejects.toThrow(/listed no tickets .* nothing removed/);
    expect(bucket.objects.size).toBe(10);
  });

  it('writes nothing when the system refuses the credentials, and keeps the failure in the status', async () => {
    const system = fakeSystem(10);
    system.records.set('INC0000001', {
      id: 'INC0000001',
      text: 'fix',
      resolved: true,
      changedAt: at(1),
    });
    system.failWith(
      new SourceAuthError(
        'servicenow (https://acme.service-now.com) answered 401: check the secret service-desk/servicenow',
      ),
    );
    const bucket = fakeBucket();
    await expect(runTicketSync(runOf('auth', system, bucket))).rejects.toBeInstanceOf(
      SourceAuthError,
    );
    expect(bucket.objects.size).toBe(0);
    expect(bucket.syncs()).toBe(0);
    const status = (await store.readStatus(['auth'])).get('auth');
    expect(status?.lastOutcome).toBe('failed');
    expect(status?.lastError).toMatch(/SourceAuthError: .*401.*service-desk\/servicenow/);
    // The lease is released: the next run is not held off.
    const after = await store.claim({
      sourceId: 'auth',
      holder: 'next',
      now: new Date(),
      until: new Date(Date.now() + 1000),
    });
    expect(after).toEqual({ cursor: undefined });
  });
});
