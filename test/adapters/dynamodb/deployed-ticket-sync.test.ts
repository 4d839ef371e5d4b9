import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BedrockAgentClient } from '@aws-sdk/client-bedrock-agent';
import { DeleteTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
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
import { type LocalS3Server, startLocalS3Server } from '../../../local/s3/start-local-s3-server.js';
import { pullIntoStack } from '../../../scripts/import/pull-into-stack.js';
import { createTestClient } from '../../support/dynamodb-test-tables.js';
import {
  type LocalSyncControlPlane,
  startLocalSyncControlPlane,
} from '../../support/local-sync-control-plane.js';
import {
  field,
  type LocalServiceNow,
  startServiceNowServer,
} from '../../support/ticket-systems/servicenow-server.js';

/**
 * The deployed sync (functions/ticket-sync/deployed-sync.ts) over the real conversion and the
 * DynamoDB state store, against a fake ticket system and bucket: the lease, the stop before the
 * time limit and the resume, a run killed midway, changed-only writes, reconciliation, a 401.
 * Then end to end on local endpoints: `npm run import -- --url --upload` and the scheduled
 * function's handler itself.
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

  /**
   * Into a stack on local endpoints: the local S3 (the Knowledge Base bucket), this table, the
   * local ServiceNow Table API, and a local Secrets Manager and Bedrock Agent
   * (test/support/local-sync-control-plane.ts).
   */
  describe('into the stack: the command line’s --url --upload and the scheduled function', () => {
    const BUCKET = 'kb-documents';
    let root: string;
    let s3Server: LocalS3Server;
    let serviceNow: LocalServiceNow;
    let controlPlane: LocalSyncControlPlane;

    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), 'sync-into-stack-'));
      s3Server = await startLocalS3Server({ root, buckets: [BUCKET] });
      serviceNow = await startServiceNowServer({
        credentials: { username: 'reader', password: 's3cret-value' },
        tables: {
          incident: [
            closedIncident('INC0040001', '2024-03-01 08:00:00'),
            closedIncident('INC0040002', '2024-03-01 08:10:00'),
            closedIncident('INC0040003', '2024-03-01 08:20:00'),
          ],
        },
      });
      controlPlane = await startLocalSyncControlPlane({
        'service-desk/servicenow': JSON.stringify({
          SERVICENOW_USERNAME: 'reader',
          SERVICENOW_PASSWORD: 's3cret-value',
        }),
      });
    });

    afterAll(async () => {
      await Promise.all([s3Server?.close(), serviceNow?.close(), controlPlane?.close()]);
      await rm(root, { recursive: true, force: true });
    });

    /** The object names under a source's folder of the bucket. */
    const objectsOf = (sourceId: string) =>
      readdirSync(join(root, BUCKET, 'tickets', 'imported', sourceId)).sort();

    const cursorItemOf = async (sourceId: string) =>
      (
        await table.documents.send(
          new GetCommand({ TableName: table.tableName, Key: { source: sourceId, item: 'cursor' } }),
        )
      ).Item;

    it('npm run import -- --url --upload: the first pull uploads the tickets and keeps the cursor in the table; a second without changes writes nothing', async () => {
      const s3 = new S3Client({
        endpoint: s3Server.endpoint,
        forcePathStyle: true,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      });
      const s3Writes: string[] = [];
      s3.middlewareStack.add(
        (next, context) => async (args) => {
          if (/^(Put|Delete)Object/.test(String(context.commandName))) {
            s3Writes.push(`${context.commandName} ${(args.input as { Key?: string }).Key}`);
          }
          return next(args);
        },
        { step: 'initialize', name: 'recordWrites' },
      );
      const ingestionJobs: unknown[] = [];
      const agent = {
        async send(command: unknown) {
          ingestionJobs.push(command);
          return { ingestionJob: { ingestionJobId: 'job-1', status: 'STARTING' } };
        },
      } as unknown as BedrockAgentClient;
      const pull = async () => {
        const lines: string[] = [];
        const errors: string[] = [];
        const code = await pullIntoStack(
          {
            system: 'servicenow',
            url: serviceNow.url,
            tables: ['incident'],
            comments: 'none',
            restrictedWhen: [],
            reconcile: false,
          },
          {
            env: { SERVICENOW_USERNAME: 'reader', SERVICENOW_PASSWORD: 's3cret-value' },
            runtime: { fetch, sleep: async () => {}, now: () => Date.now(), maxAttempts: 2 },
            target: {
              stackName: 'ServiceDeskAssistant',
              bucket: BUCKET,
              ticketSyncTable: table.tableName,
              turnsTable: 'unused-unless-a-sync-is-owed',
              knowledgeBaseId: 'KB',
              dataSourceId: 'DS',
            },
            clients: { s3, documents: table.documents, agent },
            holder: randomUUID(),
            signal: new AbortController().signal,
            log: (line) => lines.push(line),
            error: (line) => errors.push(line),
            now: () => new Date('2024-03-01T09:00:00Z'),
          },
        );
        return { code, lines, errors };
      };

      const first = await pull();
      expect(first.errors).toEqual([]);
      expect(first.code).toBe(0);
      expect(first.lines[0]).toContain(
        `3 new, 0 changed (written), 0 unchanged in s3://${BUCKET}/tickets/imported/servicenow/`,
      );
      expect(first.lines.join('\n')).not.toContain('s3cret-value');
      expect(objectsOf('servicenow')).toEqual([
        'INC0040001.md',
        'INC0040001.md.metadata.json',
        'INC0040002.md',
        'INC0040002.md.metadata.json',
        'INC0040003.md',
        'INC0040003.md.metadata.json',
      ]);
      expect(s3Writes).toHaveLength(6);
      const cursor = await cursorItemOf('servicenow');
      expect(cursor?.sourceKey).toBe(`servicenow ${new URL(serviceNow.url).origin} incident`);
      expect(JSON.parse(String(cursor?.cursor))).toMatchObject({
        updatedSince: '2024-03-01T08:20:00.000Z',
      });
      expect(cursor?.leaseHolder).toBeUndefined();
      const hashes = await createKnowledgeBaseTicketStore(table, {
        sourceId: 'servicenow',
        knowledgeBase: fakeBucket().knowledgeBase,
      }).load();
      expect([...hashes.hashes.keys()].sort()).toEqual(['INC0040001', 'INC0040002', 'INC0040003']);
      expect(ingestionJobs).toHaveLength(1);
      expect(first.lines.at(-1)).toBe('Sync started; follow it with npm run ingest -- --latest.');

      const second = await pull();
      expect(second.code).toBe(0);
      expect(second.lines[0]).toMatch(/0 new, 0 changed \(written\), \d+ unchanged/);
      expect(s3Writes).toHaveLength(6);
      expect(ingestionJobs).toHaveLength(1);
      expect(second.lines.at(-1)).toBe('Nothing written: no sync started.');
      // Only the overlap window was asked for: from the cursor less its five minutes.
      expect(queryOf(serviceNow.requests.at(-1))).toContain('sys_updated_on>=2024-03-01 08:15:00');
      s3.destroy();
    });

    it('the deployed handler, invoked as the schedule invokes it: secret read signed, documents in the bucket, cursor in the table, the next run incremental', async () => {
      const realFetch = globalThis.fetch;
      // The source's https origin is the local Table API (the setting takes https only).
      vi.stubGlobal('fetch', (input: string | URL | Request, init?: RequestInit) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        return url.origin === 'https://acme.service-now.test'
          ? realFetch(`${serviceNow.url}${url.pathname}${url.search}`, init)
          : realFetch(input, init);
      });
      const environment = {
        TICKET_SYNC_SOURCE: JSON.stringify({
          system: 'servicenow',
          id: 'servicenow-e2e',
          url: 'https://acme.service-now.test',
          secret: 'service-desk/servicenow',
          filters: { tables: ['incident'] },
        }),
        TICKET_SYNC_TABLE: table.tableName,
        KNOWLEDGE_BUCKET: BUCKET,
        KNOWLEDGE_KEY_PREFIX: 'tickets/imported/servicenow-e2e/',
        KNOWLEDGE_BASE_ID: 'KB',
        KNOWLEDGE_DATA_SOURCE_ID: 'DS',
        TURNS_TABLE: 'unused-unless-a-sync-is-owed',
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        DYNAMODB_ENDPOINT: inject('dynamoDbEndpoint'),
        S3_ENDPOINT: s3Server.endpoint,
        BEDROCK_AGENT_ENDPOINT: controlPlane.endpoint,
        SECRETS_MANAGER_ENDPOINT: controlPlane.endpoint,
      };
      for (const [name, value] of Object.entries(environment)) vi.stubEnv(name, value);
      try {
        // A fresh execution environment: the handler reads its settings when it loads.
        vi.resetModules();
        const { handler } = await import('../../../functions/ticket-sync/handler.js');
        const context = (requestId: string) => ({
          awsRequestId: requestId,
          getRemainingTimeInMillis: () => 900_000,
        });

        const first = await handler({ mode: 'pull' }, context('request-1'));
        expect(first).toMatchObject({ outcome: 'complete', ingestion: 'started' });
        expect(first.counts).toMatchObject({ added: 3, changed: 0, removed: 0 });
        expect(objectsOf('servicenow-e2e')).toHaveLength(6);
        expect(controlPlane.secretReads).toEqual([
          {
            secretId: 'service-desk/servicenow',
            authorization: expect.stringMatching(
              /^AWS4-HMAC-SHA256 Credential=local\/\d{8}\/us-east-1\/secretsmanager\/aws4_request,/,
            ),
          },
        ]);
        expect(controlPlane.ingestionJobs).toEqual([{ knowledgeBaseId: 'KB', dataSourceId: 'DS' }]);
        const cursor = await cursorItemOf('servicenow-e2e');
        expect(JSON.parse(String(cursor?.cursor))).toMatchObject({
          updatedSince: '2024-03-01T08:20:00.000Z',
        });

        // One ticket changed and one new since: only they are written.
        const incidents = serviceNow.tables.get('incident') ?? [];
        incidents[1] = {
          ...closedIncident('INC0040002', '2024-03-01 09:30:00'),
          close_notes: field('プリンタードライバーを再インストールしました。'),
        };
        incidents.push(closedIncident('INC0040004', '2024-03-01 09:40:00'));
        const requestsBefore = serviceNow.requests.length;
        const second = await handler({ mode: 'pull' }, context('request-2'));
        expect(second).toMatchObject({ outcome: 'complete', ingestion: 'started' });
        expect(second.counts).toMatchObject({ added: 1, changed: 1, removed: 0 });
        // INC0040003 (08:20) is re-read in the overlap window, found unchanged, not written.
        expect(second.counts.unchanged).toBe(1);
        expect(queryOf(serviceNow.requests[requestsBefore])).toContain(
          'sys_updated_on>=2024-03-01 08:15:00',
        );
        expect(objectsOf('servicenow-e2e')).toHaveLength(8);
        expect(
          readFileSync(
            join(root, BUCKET, 'tickets', 'imported', 'servicenow-e2e', 'INC0040002.md'),
            'utf8',
          ),
        ).toContain('プリンタードライバーを再インストールしました。');
        expect(JSON.parse(String((await cursorItemOf('servicenow-e2e'))?.cursor))).toMatchObject({
          updatedSince: '2024-03-01T09:40:00.000Z',
        });
        expect(controlPlane.ingestionJobs).toHaveLength(2);
        expect(controlPlane.secretReads).toHaveLength(2);
      } finally {
        vi.unstubAllEnvs();
        vi.unstubAllGlobals();
        vi.resetModules();
      }
    });
  });
});

/** The encoded query of a Table API request. */
function queryOf(request: string | undefined): string {
  return new URL(request ?? '/', 'http://local').searchParams.get('sysparm_query') ?? '';
}

/** A closed incident as the Table API lists it with `sysparm_display_value=all`. */
function closedIncident(number: string, updatedOn: string) {
  return {
    sys_id: field(number.toLowerCase().padEnd(32, '0')),
    number: field(number),
    short_description: field('印刷できない'),
    description: field('3 階のプリンターで白紙が出ます。'),
    state: field('7', 'Closed'),
    close_notes: field('定着器を清掃しました。'),
    category: field('hardware', 'Hardware'),
    sys_updated_on: field(updatedOn),
  };
}
