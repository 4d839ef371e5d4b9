import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSyncBacklog } from '../../functions/adapters/dynamodb/sync-backlog.js';
import type { SyncBacklog } from '../../functions/knowledge/ports.js';
import {
  type LocalBedrockServer,
  startLocalBedrockServer,
} from '../../local/bedrock/start-local-bedrock-server.js';
import { createTestTables, type TestTables } from '../support/dynamodb-test-tables.js';

/**
 * The sync catch-up as Lambda runs it: the handler module with its own SDK clients, against
 * DynamoDB Local (the owed-sync marker in the Turns table) and the local Bedrock endpoint
 * (StartIngestionJob). The marker's conditional clear is checked on DynamoDB Local too.
 */
let t: TestTables;
let bedrock: LocalBedrockServer;
let backlog: SyncBacklog;
let handler: typeof import('../../functions/knowledge-sync/handler.js').handler;

beforeAll(async () => {
  t = await createTestTables('sync');
  bedrock = await startLocalBedrockServer({ pacing: { minMs: 0, maxMs: 0 } });
  backlog = createSyncBacklog({
    documents: DynamoDBDocumentClient.from(t.client),
    tables: t.tables,
  });
  vi.stubEnv('TURNS_TABLE', t.tables.turns);
  vi.stubEnv('KNOWLEDGE_BASE_ID', bedrock.knowledgeBaseId);
  vi.stubEnv('KNOWLEDGE_DATA_SOURCE_ID', bedrock.dataSourceId);
  vi.stubEnv('DYNAMODB_ENDPOINT', t.endpoint);
  vi.stubEnv('BEDROCK_AGENT_ENDPOINT', bedrock.agentEndpoint);
  vi.stubEnv('AWS_REGION', 'us-east-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
  vi.stubEnv('POWERTOOLS_DEV', 'false');
  // A fresh module, as a new execution environment loads it: the module reads its settings
  // once, and the test process may already hold it with another file's settings.
  vi.resetModules();
  ({ handler } = await import('../../functions/knowledge-sync/handler.js'));
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await bedrock?.close();
  await t?.dispose();
});

describe('the sync catch-up handler', () => {
  it('starts no sync while none is owed', async () => {
    const jobs = bedrock.ingestionJobs.length;
    expect(await handler()).toEqual({ outcome: 'idle' });
    expect(bedrock.ingestionJobs).toHaveLength(jobs);
  });

  it('starts the owed sync once, then is idle again', async () => {
    await backlog.markPending(new Date('2026-12-01T10:00:00Z'));
    await backlog.markPending(new Date('2026-12-01T10:02:00Z'));
    const jobs = bedrock.ingestionJobs.length;

    const written: string[] = [];
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    const outcome = await handler().finally(() => stdout.mockRestore());
    expect(outcome).toEqual({ outcome: 'started', pendingSince: '2026-12-01T10:00:00.000Z' });
    // The wait, as the metric the overdue alarm watches, and one log line of what was done.
    // Only the JSON lines: whatever else the worker prints meanwhile is not the handler's.
    const lines = written
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    const owed = lines.find((line) => 'KnowledgeSyncOwedSeconds' in line);
    const waited = (Date.now() - Date.parse('2026-12-01T10:00:00Z')) / 1000;
    expect(owed?.KnowledgeSyncOwedSeconds).toBeGreaterThanOrEqual(Math.floor(waited) - 5);
    expect(owed?.KnowledgeSyncOwedSeconds).toBeLessThanOrEqual(Math.ceil(waited));
    expect(lines).toContainEqual(
      expect.objectContaining({ message: 'knowledge sync catch-up', outcome: 'started' }),
    );
    expect(bedrock.ingestionJobs).toHaveLength(jobs + 1);
    expect(bedrock.ingestionJobs.at(-1)).toMatchObject({
      knowledgeBaseId: bedrock.knowledgeBaseId,
      dataSourceId: bedrock.dataSourceId,
      job: { status: 'COMPLETE' },
    });
    expect(await backlog.read()).toBeUndefined();

    expect(await handler()).toEqual({ outcome: 'idle' });
    expect(bedrock.ingestionJobs).toHaveLength(jobs + 1);
  });
});

describe('the owed-sync mark on DynamoDB', () => {
  it('keeps the first time a sync was owed and counts the marks', async () => {
    await backlog.markPending(new Date('2026-12-01T11:00:00Z'));
    await backlog.markPending(new Date('2026-12-01T11:04:00Z'));
    expect(await backlog.read()).toEqual({ pendingSince: '2026-12-01T11:00:00.000Z', marks: 2 });
  });

  it('is not cleared by a run that read it before another publish marked it again, even at the same instant', async () => {
    const seen = await backlog.read();
    if (seen === undefined) throw new Error('expected the mark of the previous test');
    await backlog.markPending(new Date('2026-12-01T11:04:00Z'));
    await backlog.clear(seen);
    expect(await backlog.read()).toEqual({ pendingSince: '2026-12-01T11:00:00.000Z', marks: 3 });

    await backlog.clear({ pendingSince: seen.pendingSince, marks: 3 });
    expect(await backlog.read()).toBeUndefined();
    // Clearing what is already gone is no error (two runs may overlap).
    await backlog.clear({ pendingSince: seen.pendingSince, marks: 3 });
  });
});
