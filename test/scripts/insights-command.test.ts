import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Insights, insightsSchema } from '../../functions/contract/insights.js';
import { callApi, eventsNamed, fetchConversation, postChat } from '../support/chat-client.js';
import { createTestTables, type TestTables } from '../support/dynamodb-test-tables.js';
import { type InProcessApiOnLocalServices, startInProcessApi } from '../support/in-process-api.js';

/**
 * `npm run insights` against a local stack (issue #28): real chats through the API in process
 * on DynamoDB Local and the local Bedrock endpoint, one rated 👎 and one marked solved, one
 * answer's e-mail draft copied and edited, then the command as an operator runs it (its own process, the stack's DynamoDB endpoint) — the page's
 * figures as JSON and as tables. Argument parsing and the tables' layout are unit-tested
 * (test/scripts/insights/).
 */

let stack: InProcessApiOnLocalServices;
let tables: TestTables;
/** The command's DATA_DIR: empty, so its local catalog is data/tickets alone (no published ones). */
const dataDir = mkdtempSync(join(tmpdir(), 'insights-cli-data-'));
/** The tickets of data/tickets, which the local stack serves and the command lists. */
const SAMPLE_TICKETS = 171;
beforeAll(async () => {
  // The stack's insights table named here, so the command is pointed at the table the API writes.
  tables = await createTestTables('insights-cli');
  stack = await startInProcessApi({
    store: 'dynamodb',
    functionEnvironment: { INSIGHTS_TABLE: tables.tables.insights },
  });
});
afterAll(async () => {
  await stack?.stop();
  await tables?.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

const run = promisify(execFile);

/** The command in its own process, as `npm run insights -- …` runs it (through tsx, without npm). */
function insightsCommand(args: readonly string[]) {
  return run(
    process.execPath,
    [
      '--import',
      'tsx',
      'scripts/insights-report.ts',
      '--endpoint',
      stack.dynamoDbEndpoint,
      '--table',
      tables.tables.insights,
      ...args,
    ],
    {
      env: {
        ...process.env,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        DATA_DIR: dataDir,
        TICKETS_DIR: '',
      },
    },
  );
}

async function chat(user: string, message: string) {
  const response = await postChat(stack.api, { message }, { user });
  expect(response.status).toBe(200);
  const conversationId = eventsNamed(response, 'meta')[0]?.conversationId as string;
  const detail = await fetchConversation(stack.api, conversationId, user);
  const answer = detail.turns.find((turn) => turn.role === 'assistant');
  if (!answer) throw new Error('the chat stored no assistant turn');
  const cited = answer.result?.results?.map((ticket) => ticket.issue_id) ?? [];
  const hasDraft = (answer.result?.mail_draft?.trim() ?? '') !== '';
  // The Knowledge Base's subjects, as retrieval showed them (not the cards' model-written copy).
  const chunks = (eventsNamed(response, 'kb_chunks')[0]?.chunks ?? []) as {
    issue_id: string;
    subject: string;
  }[];
  const subjects = new Map(chunks.map((chunk) => [chunk.issue_id, chunk.subject]));
  return { conversationId, seq: answer.seq, cited, hasDraft, subjects };
}

async function feedback(
  user: string,
  answered: { conversationId: string; seq: number },
  body: unknown,
) {
  const response = await callApi(
    stack.api,
    'POST',
    `/api/conversations/${answered.conversationId}/turns/${answered.seq}/feedback`,
    body,
    { user },
  );
  expect(response.status).toBe(200);
}

describe('npm run insights against the local stack', () => {
  it('prints the figures of real chats, feedback and a used e-mail draft, as JSON and as tables', async () => {
    const printer = await chat(
      'insights-alice',
      'プリンターで印刷できません。トレイに紙はあります',
    );
    const vpn = await chat('insights-bob', 'VPNに接続できません。エラー809が出ます');
    const outlook = await chat('insights-carol', 'Outlook keeps asking for my password');
    expect(printer.cited.length).toBeGreaterThan(0);
    await feedback('insights-alice', printer, {
      rating: 'up',
      helpfulTicketIds: [printer.cited[0]],
    });
    await feedback('insights-bob', vpn, { rating: 'down', reason: 'irrelevant_tickets' });
    // The printer answer's draft copied twice and edited: one accepted answer, changed.
    expect(printer.hasDraft).toBe(true);
    const draftPath = `/api/conversations/${printer.conversationId}/turns/${printer.seq}/mail-draft`;
    for (const action of ['copy', 'copy']) {
      const copied = await callApi(
        stack.api,
        'POST',
        `${draftPath}/actions`,
        { action },
        {
          user: 'insights-alice',
        },
      );
      expect(copied.status).toBe(200);
    }
    const edited = await callApi(
      stack.api,
      'PUT',
      draftPath,
      { text: '修正した返信です。' },
      {
        user: 'insights-alice',
      },
    );
    expect(edited.status).toBe(200);
    const drafted = [printer, vpn, outlook].filter((answer) => answer.hasDraft).length;

    const json = await insightsCommand(['--json']);
    const insights: Insights = insightsSchema.parse(JSON.parse(json.stdout));
    expect(insights.days).toBe(30);
    expect(insights.activity.perDay).toHaveLength(30);
    expect(insights.activity.totals).toMatchObject({ chats: 3, ratedUp: 1, ratedDown: 1 });
    expect(insights.activity.totals.inputTokens).toBeGreaterThan(0);
    expect(insights.helped.mostSolved[0]).toMatchObject({ issueId: printer.cited[0], solved: 1 });
    const printerSubject = printer.subjects.get(printer.cited[0] as string);
    // The subject kb_chunks showed for the solved ticket: a non-blank string to find again.
    expect(printerSubject).toMatch(/\S/);
    expect(insights.helped.mostSolved[0]?.subject).toBe(printerSubject);
    // The 👎 with irrelevant_tickets makes its inquiry a gap of its topic.
    expect(insights.gaps.some((gap) => gap.byReason.rated_down === 1)).toBe(true);
    expect(insights.replies.totals).toMatchObject({
      answersWithDraft: drafted,
      accepted: 1,
      changed: 1,
      acceptedChanged: 1,
      copies: 2,
      edits: 1,
      acceptanceRate: 1 / drafted,
      editRate: 1,
    });

    const tables = await insightsCommand(['--since', '90d']);
    expect(tables.stdout).toContain('# Service-desk insights, last 90 days');
    expect(tables.stdout).toMatch(/\| 3 +\| \d+ +\| \d+ +\| 0 +\| 0 +\| 1 \/ 1 \(50\.0% up\)/);
    expect(tables.stdout).toContain(`| #${printer.cited[0]} `);
    expect(tables.stdout).toContain(`| ${printerSubject} `);
    expect(tables.stdout).toContain(
      `Acceptance rate ${((100 * 1) / drafted).toFixed(1)}% · edit rate 100.0%`,
    );
    // Inquiry text is for leads: the tables give counts only.
    expect(tables.stdout).not.toContain('エラー809');
    // Never retrieved, out of the served ticket folder the command lists.
    expect(insights.helped.neverRetrieved.total).toBe(SAMPLE_TICKETS);
    expect(insights.helped.neverRetrieved.count).toBeLessThan(SAMPLE_TICKETS);
    expect(insights.helped.neverRetrieved.sample).not.toContain(printer.cited[0]);
    expect(tables.stdout).toMatch(new RegExp(`\\d+ of ${SAMPLE_TICKETS} tickets: #`));
    expect(tables.stdout).toContain('ticket catalog: the ticket documents of');
  }, 120_000);

  it('refuses a wrong window in one line, exit code 2, before opening anything', async () => {
    const failure = await insightsCommand(['--since', '7d']).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(failure).toMatchObject({
      code: 2,
      stderr: "npm run insights: --since must be 30d or 90d (the page's windows), not 7d\n",
    });
  }, 60_000);
});
