import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cursorFileOf, FileCursorStore } from '../../../functions/ticket-sync/file-stores.js';
import { printSyncStatus, pullTickets } from '../../../scripts/import/pull-tickets.js';
import { temporaryDirectoriesOfThisFile, ticketFilesOf } from '../../support/import-folders.js';
import type { LocalApiServer } from '../../support/ticket-systems/local-api-server.js';
import { field, startServiceNowServer } from '../../support/ticket-systems/servicenow-server.js';

const newDirectory = temporaryDirectoriesOfThisFile('pull-command-');
const servers: LocalApiServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const closed = (number: string, updatedOn: string) => ({
  sys_id: field(number.toLowerCase().padEnd(32, '0')),
  number: field(number),
  short_description: field('メールが送信できない'),
  description: field('Outlook から送信すると 550 エラーになります。佐藤 (sato@example.com) まで。'),
  state: field('7', 'Closed'),
  close_notes: field('送信コネクタの設定を修正しました。'),
  category: field('email', 'Email'),
  sys_updated_on: field(updatedOn),
});

async function pull(url: string, outDir: string, env: Record<string, string>) {
  const lines: string[] = [];
  const errors: string[] = [];
  const code = await pullTickets(
    {
      system: 'servicenow',
      url,
      outDir,
      tables: ['incident'],
      comments: 'none',
      restrictedWhen: [],
      reconcile: true,
      dryRun: false,
    },
    {
      env,
      runtime: { fetch, sleep: async () => {}, now: () => Date.now(), maxAttempts: 2 },
      cursors: new FileCursorStore(cursorFileOf(outDir)),
      signal: new AbortController().signal,
      log: (line) => lines.push(line),
      error: (line) => errors.push(line),
      now: () => new Date('2024-03-01T09:00:00Z'),
    },
  );
  return { code, lines, errors };
}

describe('npm run import -- --from servicenow --url', () => {
  it('pulls with credentials from the environment, prints the report and --status, never the credentials', async () => {
    const server = await startServiceNowServer({
      credentials: { username: 'reader', password: 's3cret-value' },
      tables: { incident: [closed('INC0030001', '2024-03-01 08:30:00')] },
    });
    servers.push(server);
    const outDir = join(newDirectory(), 'tickets');
    const env = { SERVICENOW_USERNAME: 'reader', SERVICENOW_PASSWORD: 's3cret-value' };
    const run = await pull(server.url, outDir, env);
    expect(run.errors).toEqual([]);
    expect(run.code).toBe(0);
    expect(run.lines[0]).toContain('1 new, 0 changed (written)');
    expect(run.lines.join('\n')).toContain('Personal data replaced: email 1');
    expect(run.lines.join('\n')).not.toContain('s3cret-value');
    expect(Object.keys(ticketFilesOf(outDir))).toEqual([
      'INC0030001.md',
      'INC0030001.md.metadata.json',
    ]);

    const status: string[] = [];
    printSyncStatus(
      await new FileCursorStore(cursorFileOf(outDir)).status(),
      new Date('2024-03-01T09:00:00Z'),
      (line) => status.push(line),
    );
    expect(status.join('\n')).toMatch(
      /last run 2024-03-01T09:00:00.000Z complete; last successful sync 2024-03-01T09:00:00.000Z/,
    );
    expect(status.join('\n')).toContain('1 added, 0 changed, 0 removed');
    expect(status.join('\n')).toContain('lag 30 min');
  });

  it('ends a 401 with a clear message, exit code 1, and nothing written', async () => {
    const server = await startServiceNowServer({
      credentials: { username: 'reader', password: 'right' },
      tables: { incident: [closed('INC0030001', '2024-03-01 08:30:00')] },
    });
    servers.push(server);
    const outDir = join(newDirectory(), 'tickets');
    const run = await pull(server.url, outDir, {
      SERVICENOW_USERNAME: 'reader',
      SERVICENOW_PASSWORD: 'wrong',
    });
    expect(run.code).toBe(1);
    expect(run.errors.join('\n')).toContain(
      'FAILED: ServiceNow refused the credentials (HTTP 401)',
    );
    expect(run.errors.join('\n')).toContain(
      'check SERVICENOW_USERNAME/SERVICENOW_PASSWORD or SERVICENOW_TOKEN',
    );
    expect(run.errors.join('\n')).not.toContain('wrong');
    expect(existsSync(outDir)).toBe(false);
  });

  it('names the variables when no credentials are set', async () => {
    const run = await pull('https://acme.service-now.com', join(newDirectory(), 'tickets'), {});
    expect(run.code).toBe(2);
    expect(run.errors[0]).toContain(
      'Set SERVICENOW_USERNAME/SERVICENOW_PASSWORD or SERVICENOW_TOKEN',
    );
  });
});
