import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ticketSyncTable } from '../../../functions/adapters/dynamodb/table-definitions.js';
import {
  createKnowledgeFreshness,
  type TicketSyncTableContext,
} from '../../../functions/adapters/dynamodb/ticket-sync-status.js';
import {
  createKnowledgeBaseTicketStore,
  createTicketSyncCursorStore,
} from '../../../functions/adapters/dynamodb/ticket-sync-store.js';
import type { KnowledgeDocuments } from '../../../functions/knowledge/ports.js';
import type { ImportedRecord } from '../../../functions/ticket-import/imported-ticket.js';
import {
  type DeployedSyncRun,
  runDeployedSync,
} from '../../../functions/ticket-sync/deployed-sync.js';
import { SourceAuthError } from '../../../functions/ticket-sync/source-http.js';
import { initialCursor } from '../../../functions/ticket-sync/sync-cursor.js';
import {
  LeaseLostError,
  lagSeconds,
  type SyncMode,
} from '../../../functions/ticket-sync/sync-status.js';
import type { TicketSource } from '../../../functions/ticket-sync/ticket-source.js';
import { createTable } from '../../../local/create-tables.js';
import { createTestClient } from '../../support/dynamodb-test-tables.js';

/**
 * The deployed sync (functions/ticket-sync/deployed-sync.ts) over the real conversion and the
 * DynamoDB state store, against a fake ticket system and bucket: the lease, the stop before the
 * time limit and the resume, a run killed midway, changed-only writes, reconciliation, a 401.
 */

/** A record of the fake system: resolved ones become tickets; a reopened one is removed. */
interface FakeRecord {
  readonly number: string;
  readonly text: string;
  readonly resolved: boolean;
  readonly changedAt: string;
}

function importedRecord(record: FakeRecord): ImportedRecord {
  return {
    number: record.number,
    subject: `Printer ${record.number}`,
    inquiry: 'The printer on floor 3 prints blank pages.',
    resolution: [record.text],
    category: 'Hardware',
    resolved: record.resolved,
    duplicate: false,
    people: [],
    fields: {},
  };
}

/**
 * A ticket system holding `records`, paged `pageSize` at a time in change order; the cursor is
 * the last change written (no overlap: the fake's clock is exact).
 */
function fakeSystem(pageSize: number) {
  const records = new Map<string, FakeRecord>();
  let failWith: Error | undefined;
  const source: TicketSource = {
    system: 'servicenow',
    async *pullChanged(cursor) {
      if (failWith) throw failWith;
      const changed = [...records.values()]
        .filter((record) => !cursor.updatedSince || record.changedAt > cursor.updatedSince)
        .sort((a, b) => a.changedAt.localeCompare(b.changedAt));
      for (let start = 0; start < changed.length; start += pageSize) {
        const page = changed.slice(start, start + pageSize);
        const last = page[page.length - 1] as FakeRecord;
        yield {
          records: page.map((record) => ({
            sourceId: record.number,
            updatedAt: record.changedAt,
            record: importedRecord(record),
          })),
          nextCursor: { version: 1, updatedSince: last.changedAt, overlapSeconds: 0 },
        };
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

/** The bucket: object names to text, every document written in order, the syncs started. */
function fakeBucket() {
  const objects = new Map<string, string>();
  const writes: string[] = [];
  let syncs = 0;
  let failOnWrite: string | undefined;
  const knowledgeBase: Pick<KnowledgeDocuments, 'write' | 'remove' | 'startSync'> = {
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
    knowledgeBase,
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
  let table: TicketSyncTableContext;

  beforeAll(async () => {
    client = createTestClient().client;
    const tableName = `ticket-sync-${randomUUID().slice(0, 8)}-${ticketSyncTable.baseName}`;
    await createTable(client, tableName, ticketSyncTable);
    table = { documents: DynamoDBDocumentClient.from(client), tableName, backoff: async () => {} };
  });

  afterAll(async () => {
    await client.send(new DeleteTableCommand({ TableName: table.tableName })).catch(() => {});
    client.destroy();
  });

  /** A run of source `sourceId` with `remaining()` ms of the function's time left. */
  function runOf(
    sourceId: string,
    system: ReturnType<typeof fakeSystem>,
    bucket: ReturnType<typeof fakeBucket>,
    options: { mode?: SyncMode; remaining?: () => number; marks?: Date[] } = {},
  ): DeployedSyncRun {
    return {
      mode: options.mode ?? 'pull',
      sourceKey: `servicenow https://${sourceId}.service-now.com`,
      source: system.source,
      settings: { system: 'servicenow', rules: [] },
      firstCursor: initialCursor({}),
      cursors: createTicketSyncCursorStore(table, { sourceId, holder: randomUUID() }),
      documents: createKnowledgeBaseTicketStore(table, {
        sourceId,
        knowledgeBase: bucket.knowledgeBase,
      }),
      knowledgeBase: bucket.knowledgeBase,
      syncBacklog: {
        async markPending(when) {
          options.marks?.push(when);
        },
      },
      ticketIdOf: (number) => number,
      now: () => new Date(Date.UTC(2026, 11, 7, 10, 0)),
      remainingMs: options.remaining ?? (() => 900_000),
      stopMarginMs: 120_000,
    };
  }

  function addResolved(system: ReturnType<typeof fakeSystem>, count: number): void {
    for (let minute = 0; minute < count; minute++) {
      const number = `INC${String(minute).padStart(7, '0')}`;
      system.records.set(number, {
        number,
        text: `Cleaned the fuser (${minute}).`,
        resolved: true,
        changedAt: at(minute),
      });
    }
  }

  it('lets one run hold a source’s lease: an overlapping run is held off, a run past its lease cannot save', async () => {
    const now = new Date(Date.UTC(2026, 11, 7, 10, 0));
    const until = new Date(now.getTime() + 60_000);
    const runA = createTicketSyncCursorStore(table, { sourceId: 'lease', holder: 'run-a' });
    const runB = createTicketSyncCursorStore(table, { sourceId: 'lease', holder: 'run-b' });
    const key = 'servicenow https://lease.service-now.com';
    const cursor = initialCursor({ since: '2026-12-01T00:00:00Z' });
    expect(await runA.claim(now, until)).toBe('claimed');
    await runA.save(key, cursor);
    expect(await runB.claim(now, until)).toBe('held');
    // Run A died without releasing: once its lease ran out, B takes over at A's cursor.
    const later = new Date(until.getTime() + 1);
    expect(await runB.claim(later, new Date(later.getTime() + 60_000))).toBe('claimed');
    expect(await runB.load(key)).toEqual(cursor);
    await expect(runA.save(key, initialCursor({}))).rejects.toBeInstanceOf(LeaseLostError);
    await runA.release(); // not A's any more: B's lease stays
    const runC = createTicketSyncCursorStore(table, { sourceId: 'lease', holder: 'run-c' });
    expect(await runC.claim(later, until)).toBe('held');
    await runB.release();
    expect(await runC.claim(later, until)).toBe('claimed');
    // The entry now names another system or URL: its cursor does not carry over.
    expect(await runC.load('jira https://lease.atlassian.net')).toBeUndefined();
  });

  it('stops before the time limit and resumes at the cursor: every ticket written once, none lost', async () => {
    const system = fakeSystem(5);
    addResolved(system, 50);
    const bucket = fakeBucket();
    let remaining = 900_000;
    const pages = system.source.pullChanged.bind(system.source);
    let pagesPulled = 0;
    const first = await runDeployedSync({
      ...runOf('resume', system, bucket, { remaining: () => remaining }),
      source: {
        ...system.source,
        async *pullChanged(cursor, signal) {
          for await (const page of pages(cursor, signal)) {
            // Four pages in, the time limit draws near.
            pagesPulled += 1;
            if (pagesPulled === 4) remaining = 100_000;
            yield page;
          }
        },
      },
    });
    expect(first).toMatchObject({ outcome: 'stopped', pages: 4, counts: { added: 20 } });
    expect(first.status).toMatchObject({ outcome: 'stopped', freshAsOf: at(19) });
    expect(first.status?.lastSuccessAt).toBeUndefined();

    const second = await runDeployedSync(runOf('resume', system, bucket));
    expect(second).toMatchObject({
      outcome: 'complete',
      pages: 6,
      counts: { added: 30, changed: 0 },
    });
    expect(bucket.writes).toHaveLength(50);
    expect(new Set(bucket.writes).size).toBe(50);
    expect(bucket.objects.size).toBe(100);
    // Caught up: fresh as of the run's start, however old the newest change.
    const runStart = new Date(Date.UTC(2026, 11, 7, 10, 0));
    expect(second.status?.freshAsOf).toBe(runStart.toISOString());
    expect(lagSeconds(second.status, new Date(runStart.getTime() + 900_000))).toBe(900);

    // The insights page: the source that ran, and a configured one that never did.
    const freshness = createKnowledgeFreshness(table, [
      { id: 'resume', system: 'servicenow', maxLagMinutes: 60 },
      { id: 'never-ran', system: 'jira', maxLagMinutes: 30 },
    ]);
    expect(await freshness.read(new Date(runStart.getTime() + 90 * 60_000))).toEqual([
      {
        id: 'resume',
        system: 'servicenow',
        maxLagMinutes: 60,
        lastSuccessAt: runStart.toISOString(),
        lastRunAt: runStart.toISOString(),
        lastOutcome: 'complete',
        lagMinutes: 90,
      },
      { id: 'never-ran', system: 'jira', maxLagMinutes: 30 },
    ]);
  });

  it('repeats only the page a killed run was writing', async () => {
    const system = fakeSystem(4);
    addResolved(system, 12);
    const bucket = fakeBucket();
    // Dies in the middle of page 2 (tickets 4–7).
    bucket.failOnWrite('INC0000006.md');
    await expect(runDeployedSync(runOf('killed', system, bucket))).rejects.toThrow(/killed/);
    const [failed] = await createTicketSyncCursorStore(table, {
      sourceId: 'killed',
      holder: 'reader',
    }).status();
    expect(failed).toMatchObject({ outcome: 'failed', error: 'Error: the function was killed' });
    expect(failed?.lastSuccessAt).toBeUndefined();

    bucket.failOnWrite(undefined);
    const resumed = await runDeployedSync(runOf('killed', system, bucket));
    expect(resumed).toMatchObject({ outcome: 'complete', pages: 2, counts: { added: 8 } });
    const times = (number: number) =>
      bucket.writes.filter((name) => name === `INC${String(number).padStart(7, '0')}.md`).length;
    // Pages 1 and 3 once each; page 2 again (its hashes were never recorded), same objects.
    for (const number of [0, 1, 2, 3, 8, 9, 10, 11]) expect(times(number), `${number}`).toBe(1);
    for (const number of [4, 5, 6, 7]) expect(times(number)).toBeGreaterThanOrEqual(1);
    expect(times(6)).toBe(1);
    expect(bucket.objects.size).toBe(24);
  });

  it('writes only changed tickets, removes reopened ones, and starts one sync per run (or marks it owed)', async () => {
    const system = fakeSystem(10);
    addResolved(system, 10);
    const bucket = fakeBucket();
    const marks: Date[] = [];
    const first = await runDeployedSync(runOf('changes', system, bucket, { marks }));
    expect(first).toMatchObject({ counts: { added: 10 }, ingestion: 'started' });

    // Five records change (one only where the document does not show it), one is reopened.
    for (let minute = 0; minute < 5; minute++) {
      const record = system.records.get(`INC000000${minute}`) as FakeRecord;
      const text = minute === 0 ? record.text : `Replaced the fuser (${minute}).`;
      system.records.set(record.number, { ...record, text, changedAt: at(20 + minute) });
    }
    const reopened = system.records.get('INC0000009') as FakeRecord;
    system.records.set(reopened.number, { ...reopened, resolved: false, changedAt: at(30) });
    const writesBefore = bucket.writes.length;
    const second = await runDeployedSync(runOf('changes', system, bucket, { marks }));
    expect(second).toMatchObject({
      outcome: 'complete',
      counts: { added: 0, changed: 4, unchanged: 1, removed: 1, skipped: { notResolved: 1 } },
      ingestion: 'owed',
    });
    expect(bucket.writes.length - writesBefore).toBe(4);
    expect(bucket.objects.has('INC0000009.md')).toBe(false);
    expect(marks).toHaveLength(1);

    // Nothing changed since: no write, no sync.
    const third = await runDeployedSync(runOf('changes', system, bucket, { marks }));
    expect(third).toMatchObject({ pages: 0, counts: { added: 0, changed: 0 }, ingestion: 'none' });
    expect(bucket.syncs()).toBe(2);
  });

  it('reconciles: removes what the system no longer lists, and refuses an empty listing', async () => {
    const system = fakeSystem(10);
    addResolved(system, 6);
    const bucket = fakeBucket();
    await runDeployedSync(runOf('reconcile', system, bucket));
    system.records.delete('INC0000002');
    const reconciled = await runDeployedSync(
      runOf('reconcile', system, bucket, { mode: 'reconcile' }),
    );
    expect(reconciled).toMatchObject({
      outcome: 'complete',
      mode: 'reconcile',
      counts: { removed: 1 },
    });
    expect(bucket.objects.has('INC0000002.md')).toBe(false);
    expect(bucket.objects.size).toBe(10);

    system.records.clear();
    await expect(
      runDeployedSync(runOf('reconcile', system, bucket, { mode: 'reconcile' })),
    ).rejects.toThrow(/listed no tickets .* nothing removed/);
    expect(bucket.objects.size).toBe(10);
  });

  it('writes nothing when the system refuses the credentials, keeps the failure in the status and frees the lease', async () => {
    const system = fakeSystem(10);
    addResolved(system, 1);
    system.failWith(
      new SourceAuthError(
        'ServiceNow refused the credentials (HTTP 401) at https://acme.service-now.com: check the secret service-desk/servicenow. Nothing was written.',
      ),
    );
    const bucket = fakeBucket();
    await expect(runDeployedSync(runOf('auth', system, bucket))).rejects.toBeInstanceOf(
      SourceAuthError,
    );
    expect(bucket.objects.size).toBe(0);
    expect(bucket.syncs()).toBe(0);
    const reader = createTicketSyncCursorStore(table, { sourceId: 'auth', holder: 'next' });
    const [status] = await reader.status();
    expect(status).toMatchObject({ outcome: 'failed' });
    expect(status?.error).toMatch(/^SourceAuthError: .*401.*service-desk\/servicenow/);
    expect(await reader.claim(new Date(), new Date(Date.now() + 1000))).toBe('claimed');
  });
});
