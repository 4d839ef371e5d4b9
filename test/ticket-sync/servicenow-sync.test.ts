import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cursorFileOf } from '../../functions/ticket-sync/file-stores.js';
import { SourceAuthError } from '../../functions/ticket-sync/source-http.js';
import { temporaryDirectoriesOfThisFile, ticketFilesOf } from '../support/import-folders.js';
import type { LocalApiServer } from '../support/ticket-systems/local-api-server.js';
import {
  field,
  type ServiceNowRecord,
  startServiceNowServer,
} from '../support/ticket-systems/servicenow-server.js';
import { importFiles, syncHarness } from '../support/ticket-systems/sync-harness.js';

const newDirectory = temporaryDirectoriesOfThisFile('servicenow-sync-');
const credentials = { username: 'sync.reader', password: 'local-only' };
const servers: LocalApiServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const FIXTURE = 'test/fixtures/import/servicenow/table-api-display-all/incidents.json';

/** A resolved incident as `sysparm_display_value=all` lists it. */
function incident(
  index: number,
  updatedOn: string,
  overrides: Record<string, string> = {},
): ServiceNowRecord {
  const number = `INC00200${String(index).padStart(2, '0')}`;
  const sysId = `${String(index).padStart(2, '0')}`.padEnd(32, 'a');
  const values: Record<string, string> = {
    sys_id: sysId,
    number,
    short_description: `プリンターに印刷できない (${index})`,
    description: `3階のプリンターで印刷ジョブが止まります。内線 1234 までご連絡ください。`,
    state: '7',
    close_code: 'Solution provided',
    close_notes: `スプーラーを再起動して解決しました (${index})。`,
    category: 'hardware',
    opened_at: '2024-02-01 09:00:00',
    resolved_at: '2024-02-01 10:00:00',
    sys_updated_on: updatedOn,
    ...overrides,
  };
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [
      name,
      name === 'state' ? field(value, value === '7' ? 'Closed' : 'In Progress') : field(value),
    ]),
  );
}

function fixtureRecords(): ServiceNowRecord[] {
  const { result } = JSON.parse(readFileSync(FIXTURE, 'utf8')) as { result: ServiceNowRecord[] };
  return result.map((record, index) => ({
    ...record,
    sys_updated_on: field(`2024-01-10 0${index}:00:00`),
  }));
}

function initialRecords(): ServiceNowRecord[] {
  return [
    ...fixtureRecords(),
    ...Array.from({ length: 10 }, (_, index) =>
      incident(index, `2024-02-0${1 + (index % 5)} 12:00:0${index % 10}`),
    ),
  ];
}

async function start(records = initialRecords(), pageSize = 3) {
  const server = await startServiceNowServer({ credentials, tables: { incident: records } });
  servers.push(server);
  const outDir = join(newDirectory(), 'tickets');
  const harness = syncHarness(
    {
      system: 'servicenow',
      url: server.url,
      credentials: { kind: 'basic', ...credentials },
      tables: ['incident'],
      pageSize,
    },
    outDir,
  );
  return { server, harness, outDir };
}

describe('a pull from the ServiceNow Table API', () => {
  it('writes the same documents as the file import of the same records', async () => {
    const records = initialRecords();
    const { harness, outDir } = await start(records);
    const report = await harness.run();
    expect(report.outcome).toBe('complete');

    const exportDir = newDirectory();
    writeFileSync(join(exportDir, 'incidents.json'), JSON.stringify({ result: records }));
    const importedDir = join(newDirectory(), 'tickets');
    const imported = await importFiles('servicenow', [exportDir], importedDir);

    const pulled = ticketFilesOf(outDir);
    expect(Object.keys(pulled).length).toBeGreaterThanOrEqual(2 * 10);
    expect(pulled).toEqual(ticketFilesOf(importedDir));
    expect(report.counts.added).toBe(imported.tickets.new);
    expect(report.counts.scrubbed).toEqual(imported.scrubbed);
  });

  it('fetches only what changed: five rewritten, one reopened and removed, then a reconciliation removes one no longer listed', async () => {
    const { server, harness, outDir } = await start();
    await harness.run();
    const before = ticketFilesOf(outDir);
    const table = server.tables.get('incident') as ServiceNowRecord[];
    const later = '2024-03-01 08:00:00';
    for (const index of [0, 1, 2, 3, 4]) {
      const position = table.findIndex(
        (record) =>
          (record.number as { value: string }).value ===
          `INC00200${String(index).padStart(2, '0')}`,
      );
      table[position] = incident(index, later, {
        close_notes: `ドライバーを更新しました (${index})。`,
      });
    }
    const reopened = table.findIndex(
      (record) => (record.number as { value: string }).value === 'INC0020005',
    );
    table[reopened] = incident(5, later, { state: '2' });
    server.requests.length = 0;

    const second = await harness.run();
    // The six changed records, and INC0020009 again: changed within the overlap window (five
    // minutes before the last change read), re-read and found unchanged by its content hash.
    expect(second.counts).toMatchObject({
      records: 7,
      unchanged: 1,
      added: 0,
      changed: 5,
      removed: 1,
    });
    // Only the changed records came back: the window starts at the last change less the overlap.
    const windows = server.requests.map(
      (path) =>
        /sys_updated_on>=([^^]+)/.exec(
          new URL(path, 'http://x').searchParams.get('sysparm_query') ?? '',
        )?.[1] ?? '',
    );
    expect(windows[0]).toBe('2024-02-05 11:55:09');
    expect(windows.every((start) => start >= '2024-02-05 11:55:09')).toBe(true);
    const after = ticketFilesOf(outDir);
    expect(after['INC0020005.md']).toBeUndefined();
    const rewritten = Object.keys(after).filter((name) => after[name] !== before[name]);
    expect(rewritten.sort()).toEqual(
      [0, 1, 2, 3, 4]
        // The documents whose text changed (their sidecars, written with them, say the same).
        .map((i) => `INC00200${String(i).padStart(2, '0')}.md`)
        .sort(),
    );

    // A third run with nothing changed writes nothing (the overlap's re-reads are deduplicated).
    const third = await harness.run();
    expect(third.counts).toMatchObject({ added: 0, changed: 0, removed: 0 });
    expect(third.counts.unchanged).toBeGreaterThan(0);

    // Deleted in ServiceNow: its search never says so; the reconciliation does.
    const gone = table.findIndex(
      (record) => (record.number as { value: string }).value === 'INC0020009',
    );
    table.splice(gone, 1);
    const { reconcileSource } = await import('../../functions/ticket-sync/run-sync.js');
    const { FileTicketDocumentStore } = await import('../../functions/ticket-sync/file-stores.js');
    const { ticketIdOf } = await import('../../functions/ticket-import/imported-ticket.js');
    const reconciled = await reconcileSource({
      source: harness.source(),
      documents: new FileTicketDocumentStore(outDir, 'servicenow'),
      settings: { system: 'servicenow' },
      signal: new AbortController().signal,
      ticketIdOf: (number) => ticketIdOf('servicenow', number),
    });
    expect(reconciled.removed).toEqual(['INC0020009']);
    expect(ticketFilesOf(outDir)['INC0020009.md']).toBeUndefined();
    expect(ticketFilesOf(outDir)['INC0020008.md']).toBeDefined();
  });

  it('waits out a 429 with Retry-After: 2 and goes on', async () => {
    const { server, harness, outDir } = await start();
    server.failNext({ status: 429, headers: { 'retry-after': '2' } });
    const report = await harness.run();
    expect(harness.sleeps).toEqual([2000]);
    expect(report.outcome).toBe('complete');
    expect(Object.keys(ticketFilesOf(outDir)).length).toBe(2 * 11);
  });

  it('ends a 401 with a message naming the source and its credentials, and writes nothing', async () => {
    const { server, harness, outDir } = await start();
    server.failNext({ status: 401 });
    const error = await harness.run().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SourceAuthError);
    expect((error as Error).message).toMatch(
      /ServiceNow refused the credentials \(HTTP 401\).*SERVICENOW test credentials.*Nothing was written/,
    );
    expect(ticketFilesOf(outDir)).toEqual({});
    expect(() => readFileSync(cursorFileOf(outDir))).toThrow();
  });

  it('retries a 5xx with backoff, then ends with the cursor where the last written page left it', async () => {
    const { server, harness, outDir } = await start();
    await harness.run();
    const cursorBefore = readFileSync(cursorFileOf(outDir), 'utf8');
    server.failNext({ status: 503 }, { status: 502 }, { status: 500 });
    await expect(harness.run()).rejects.toThrow(
      /ServiceNow at .* is unavailable \(HTTP 500 after 3 attempt/,
    );
    expect(harness.sleeps).toEqual([10, 20]);
    expect(readFileSync(cursorFileOf(outDir), 'utf8')).toBe(cursorBefore);
  });

  it('resumes a run killed midway without loss or duplicates', async () => {
    const { server, harness, outDir } = await start();
    const stop = new AbortController();
    // Killed after the second page's documents and cursor were written.
    let pages = 0;
    const killed = await (async () => {
      const { runSync } = await import('../../functions/ticket-sync/run-sync.js');
      const { FileCursorStore, FileTicketDocumentStore } = await import(
        '../../functions/ticket-sync/file-stores.js'
      );
      const { sourceKeyOf } = await import('../../functions/ticket-sync/cursor-store.js');
      const { initialCursor } = await import('../../functions/ticket-sync/sync-cursor.js');
      return runSync({
        sourceKey: sourceKeyOf('servicenow', server.url),
        source: harness.source(),
        cursors: new FileCursorStore(cursorFileOf(outDir)),
        documents: new FileTicketDocumentStore(outDir, 'servicenow'),
        settings: { system: 'servicenow', rules: [] },
        firstCursor: initialCursor({}),
        signal: stop.signal,
        onPage: () => {
          pages += 1;
          if (pages === 2) stop.abort();
        },
      });
    })();
    expect(killed.outcome).toBe('stopped');
    const written = killed.counts.added;
    expect(written).toBeGreaterThan(0);
    expect(written).toBeLessThan(12);
    server.requests.length = 0;

    const resumed = await harness.run();
    expect(resumed.outcome).toBe('complete');
    // Nothing written twice: the resumed run adds exactly what the killed one had not.
    const fresh = await start();
    const whole = await fresh.harness.run();
    expect(whole.counts.added).toBe(11);
    expect(written + resumed.counts.added).toBe(whole.counts.added);
    expect(resumed.counts.changed).toBe(0);
    // It resumed where the killed run's last written page ended, not from the beginning.
    const first = new URL(server.requests[0] ?? '/', 'http://x').searchParams.get('sysparm_query');
    expect(first).not.toContain('sys_updated_on>=1970');
    expect(ticketFilesOf(outDir)).toEqual(ticketFilesOf(fresh.outDir));
  });
});
