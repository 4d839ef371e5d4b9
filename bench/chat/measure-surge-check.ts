import { randomUUID } from 'node:crypto';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import {
  createDynamoDbKnownIssueStore,
  createDynamoDbSurgeCounter,
} from '../../functions/adapters/dynamodb/surge-store.js';
import type { RetrievedTicket } from '../../functions/chat/ports.js';
import { createSurgeCheck } from '../../functions/surges/surge-check.js';
import { createTables } from '../../local/create-tables.js';
import { startDynamoDbLocal } from '../../local/dynamodb-local.js';

/**
 * The parts of the surge check (issue #53, ADR 0033) against DynamoDB Local in this process,
 * interleaved with their peers (what the whole check adds to a chat:
 * `measure-surge-check-in-chat.ts`):
 *
 * - `count`: `countInquiry` awaited on its own — topic, one UpdateItem, the tally — on a topic
 *   surging throughout (every run a new staff member), so the notice is built each time;
 * - `known issues`: `readKnownIssues` — one Query and the matching — which the chat starts at
 *   admission, beside the reservation, the commit and retrieval;
 * - `one read`: a bare GetItem of one item of the same table, the floor of any store request.
 */
export interface SurgeCheckTimings {
  readonly countMs: number[];
  readonly knownIssuesMs: number[];
  readonly oneReadMs: number[];
}

const retrieved: RetrievedTicket[] = [
  {
    issueId: '1005',
    subject: 'Outlook',
    category: 'Mail',
    restricted: false,
    text: '',
    score: 0.9,
  },
  {
    issueId: '1012',
    subject: 'Outlook',
    category: 'Mail',
    restricted: false,
    text: '',
    score: 0.8,
  },
];

export async function measureSurgeCheck(runs: number): Promise<SurgeCheckTimings> {
  const local = await startDynamoDbLocal({ port: 0 });
  try {
    const client = new DynamoDBClient({
      endpoint: local.endpoint,
      region: 'local',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const tables = await createTables(client, `bench-${randomUUID().slice(0, 8)}-`);
    const documents = DynamoDBDocumentClient.from(client);
    const knownIssues = createDynamoDbKnownIssueStore({ documents, tableName: tables.insights });
    const now = new Date();
    for (const [index, word] of ['Outlook', 'VPN', 'Teams'].entries()) {
      await knownIssues.publish(
        { tenantId: 'bench' },
        {
          id: `01JBENCH${index}`,
          title: `${word} outage`,
          note: `${word} is down; use the web version.`,
          matches: [word],
          author: 'lead',
          publishedAt: now.toISOString(),
          endsAt: new Date(now.getTime() + 86_400_000).toISOString(),
        },
      );
    }
    const check = createSurgeCheck({
      counter: createDynamoDbSurgeCounter({ documents, tableName: tables.insights }),
      knownIssues,
      alerts: { surgeStarted: async () => undefined },
      minStaff: 3,
      windowMinutes: 60,
      scrubExample: (_owner, text) => text,
      staffHash: (owner) => owner.userId,
      log: { info: () => undefined, warn: () => undefined, error: console.error },
      now: () => new Date(),
      timeoutMs: 5_000,
    });
    const timed = async (work: () => Promise<unknown>) => {
      const start = performance.now();
      await work();
      return performance.now() - start;
    };
    const timings: SurgeCheckTimings = { countMs: [], knownIssuesMs: [], oneReadMs: [] };
    const steps = [
      async (run: number, keep: boolean) => {
        const owner = { tenantId: 'bench', userId: `staff-${run}` };
        const inquiry = {
          conversationId: `c${run}`,
          inquiryId: `i${run}`,
          text: 'Outlookが起動しない',
        };
        const ms = await timed(() =>
          check.countInquiry(owner, inquiry, Promise.resolve(retrieved)),
        );
        if (keep) timings.countMs.push(ms);
      },
      async (_run: number, keep: boolean) => {
        const owner = { tenantId: 'bench', userId: 'staff' };
        const ms = await timed(() => check.readKnownIssues(owner).matching('Outlookが起動しない'));
        if (keep) timings.knownIssuesMs.push(ms);
      },
      async (_run: number, keep: boolean) => {
        const ms = await timed(() =>
          documents.send(
            new GetCommand({
              TableName: tables.insights,
              Key: { pk: 'bench#known-issue', sk: '01JBENCH0' },
            }),
          ),
        );
        if (keep) timings.oneReadMs.push(ms);
      },
    ];
    const warmUp = 20;
    for (let run = 0; run < runs + warmUp; run += 1) {
      // Interleaved, the order rotating, so no peer always runs right after another.
      for (let index = 0; index < steps.length; index += 1) {
        await steps[(run + index) % steps.length]?.(run, run >= warmUp);
      }
    }
    client.destroy();
    return timings;
  } finally {
    await local.stop();
  }
}
