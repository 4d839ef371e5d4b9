import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ticketIdOf } from '../../functions/ticket-import/imported-ticket.js';
import { FileTicketDocumentStore } from '../../functions/ticket-sync/file-stores.js';
import { reconcileSource } from '../../functions/ticket-sync/run-sync.js';
import { temporaryDirectoriesOfThisFile, ticketFilesOf } from '../support/import-folders.js';
import { type JiraIssue, startJiraServer } from '../support/ticket-systems/jira-server.js';
import type { LocalApiServer } from '../support/ticket-systems/local-api-server.js';
import { importFiles, syncHarness } from '../support/ticket-systems/sync-harness.js';
import {
  startZendeskServer,
  type ZendeskTicket,
} from '../support/ticket-systems/zendesk-server.js';

const newDirectory = temporaryDirectoriesOfThisFile('jira-zendesk-sync-');
const servers: LocalApiServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

const JIRA_FIXTURE = 'test/fixtures/import/jira/cloud-v3/search-jql-page-1.json';
const ZENDESK_FIXTURES = 'test/fixtures/import/zendesk';

function jiraIssues(): JiraIssue[] {
  const { issues } = JSON.parse(readFileSync(JIRA_FIXTURE, 'utf8')) as { issues: JiraIssue[] };
  return issues.map((issue, index) => ({
    ...issue,
    fields: { ...issue.fields, updated: `2024-05-0${index + 1}T10:0${index}:00.000+0000` },
  }));
}

describe('a pull from Jira', () => {
  it.each(['cloud', 'datacenter'] as const)(
    '(%s) writes the same documents as the file import, paging in comments a search truncated',
    async (deployment) => {
      const issues = jiraIssues();
      const server = await startJiraServer({
        credentials: { token: 'pat' },
        issues,
        commentsInSearch: 1,
      });
      servers.push(server);
      const outDir = join(newDirectory(), 'tickets');
      const harness = syncHarness(
        {
          system: 'jira',
          url: server.url,
          credentials: { kind: 'bearer', token: 'pat' },
          jiraDeployment: deployment,
          pageSize: 2,
        },
        outDir,
      );
      const report = await harness.run();
      expect(report.outcome).toBe('complete');
      const exportDir = newDirectory();
      writeFileSync(join(exportDir, 'search.json'), JSON.stringify({ issues }));
      const importedDir = join(newDirectory(), 'tickets');
      await importFiles('jira', [exportDir], importedDir);
      expect(Object.keys(ticketFilesOf(outDir)).length).toBeGreaterThan(0);
      expect(ticketFilesOf(outDir)).toEqual(ticketFilesOf(importedDir));
      const version = deployment === 'cloud' ? '3' : '2';
      expect(
        server.requests.some((path) =>
          path.startsWith(`/rest/api/${version}/issue/ITSD-123/comment`),
        ),
      ).toBe(true);
      expect(
        server.requests.every(
          (path) => !path.startsWith(`/rest/api/${version === '3' ? '2' : '3'}/`),
        ),
      ).toBe(true);
    },
  );

  it('reconciles: removes the document of an issue the search no longer lists', async () => {
    const server = await startJiraServer({ credentials: { token: 'pat' }, issues: jiraIssues() });
    servers.push(server);
    const outDir = join(newDirectory(), 'tickets');
    const harness = syncHarness(
      {
        system: 'jira',
        url: server.url,
        credentials: { kind: 'bearer', token: 'pat' },
        jiraDeployment: 'cloud',
        pageSize: 2,
      },
      outDir,
    );
    await harness.run();
    expect(ticketFilesOf(outDir)['ITSD-123.md']).toBeDefined();
    server.issues.splice(
      server.issues.findIndex((issue) => issue.key === 'ITSD-123'),
      1,
    );
    const reconciled = await reconcileSource({
      source: harness.source(),
      documents: new FileTicketDocumentStore(outDir, 'jira'),
      settings: { system: 'jira' },
      signal: new AbortController().signal,
      ticketIdOf: (number) => ticketIdOf('jira', number),
    });
    expect(reconciled.removed).toEqual(['ITSD-123']);
    expect(ticketFilesOf(outDir)['ITSD-123.md']).toBeUndefined();
    expect(Object.keys(ticketFilesOf(outDir)).length).toBeGreaterThan(0);
  });

  it('waits out Jira’s 429 by its X-RateLimit-Reset when no Retry-After is given', async () => {
    const server = await startJiraServer({ credentials: { token: 'pat' }, issues: jiraIssues() });
    servers.push(server);
    const harness = syncHarness(
      {
        system: 'jira',
        url: server.url,
        credentials: { kind: 'bearer', token: 'pat' },
        jiraDeployment: 'cloud',
      },
      join(newDirectory(), 'tickets'),
    );
    const reset = new Date(Date.now() + 30_000).toISOString();
    server.failNext({ status: 429, headers: { 'x-ratelimit-reset': reset } });
    const report = await harness.run();
    expect(report.outcome).toBe('complete');
    expect(harness.sleeps).toHaveLength(1);
    expect(harness.sleeps[0]).toBeGreaterThan(25_000);
    expect(harness.sleeps[0]).toBeLessThanOrEqual(30_000);
  });
});

function zendeskFixtures() {
  const tickets: ZendeskTicket[] = [];
  const users: unknown[] = [];
  for (const name of ['incremental-tickets-page-1.json', 'incremental-tickets-page-2.json']) {
    const page = JSON.parse(readFileSync(join(ZENDESK_FIXTURES, name), 'utf8')) as {
      tickets: ZendeskTicket[];
      users?: unknown[];
    };
    tickets.push(...page.tickets.filter((ticket) => ticket.id !== undefined));
    users.push(...(page.users ?? []));
  }
  const comments = new Map<string, unknown[]>();
  for (const file of readdirSync(join(ZENDESK_FIXTURES, 'comments'))) {
    const body = JSON.parse(readFileSync(join(ZENDESK_FIXTURES, 'comments', file), 'utf8')) as {
      comments: unknown[];
    };
    comments.set(file.replace('.json', ''), body.comments);
  }
  return { tickets, users, comments };
}

describe('a pull from Zendesk’s incremental export', () => {
  it('writes the same documents as the file import, then removes a ticket the export reports deleted', async () => {
    const fixtures = zendeskFixtures();
    const server = await startZendeskServer({
      credentials: { username: 'agent@example.com/token', password: 'api-token' },
      ...fixtures,
      commentsPerPage: 1,
    });
    servers.push(server);
    const outDir = join(newDirectory(), 'tickets');
    const harness = syncHarness(
      {
        system: 'zendesk',
        url: server.url,
        credentials: { kind: 'basic', username: 'agent@example.com/token', password: 'api-token' },
        pageSize: 2,
      },
      outDir,
    );
    server.failNext({ status: 429, headers: { 'retry-after': '2' } });
    const first = await harness.run();
    expect(harness.sleeps).toEqual([2000]);
    const importedDir = join(newDirectory(), 'tickets');
    await importFiles('zendesk', [ZENDESK_FIXTURES], importedDir);
    expect(Object.keys(ticketFilesOf(outDir)).length).toBeGreaterThan(0);
    expect(ticketFilesOf(outDir)).toEqual(ticketFilesOf(importedDir));
    expect(first.counts.added).toBe(Object.keys(ticketFilesOf(outDir)).length / 2);

    // Deleted in Zendesk: the export lists it again, with status deleted, after the cursor.
    const deleted = server.tickets.find((ticket) => ticket.id === 35436) as ZendeskTicket;
    deleted.status = 'deleted';
    deleted.updated_at = '2024-08-01T00:00:00Z';
    server.requests.length = 0;
    const second = await harness.run();
    expect(second.counts).toMatchObject({ removed: 1, added: 0, changed: 0 });
    expect(ticketFilesOf(outDir)['ZD_35436.md']).toBeUndefined();
    // It continued from the export's cursor: no start_time, no ticket read twice.
    expect(server.requests[0]).toContain('cursor=');
    expect(server.requests.filter((path) => path.includes('/comments.json'))).toEqual([]);
  });
});
