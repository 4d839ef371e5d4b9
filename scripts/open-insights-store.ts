import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BedrockAgentClient } from '@aws-sdk/client-bedrock-agent';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createKnowledgeBaseTicketCatalog } from '../functions/adapters/bedrock/knowledge-base-ticket-catalog.js';
import { createDynamoDbInsightsStore } from '../functions/adapters/dynamodb/insights-store.js';
import type { InsightsStore, TicketCatalog } from '../functions/insights/ports.js';
import { issueIdOfDocumentName } from '../functions/knowledge/ticket-document.js';
import { stackOutputNames } from '../lib/deployed-stack-names.js';
import { LOCAL_KNOWLEDGE_BUCKET } from '../local/bedrock/local-bedrock-defaults.js';
import { createTables } from '../local/create-tables.js';
import { startDynamoDbLocal } from '../local/dynamodb-local.js';
import { readDeployedStack, requireOutput } from './deployed-stack.js';

/**
 * The insights store the operator commands read and write (`npm run insights`, `npm run eval --
 * --from-feedback`): the local stack's or the deployed stack's, found as `npm run usage` finds
 * the Turns table.
 *
 * - local, no endpoint: DynamoDB Local started here over `<DATA_DIR>/dynamodb` (`.data/`), the
 *   file `npm start` keeps (DynamoDB Local's SQLite file takes a second reader beside a running
 *   `npm start`); its tables are created if missing, as `npm start` does;
 * - local with `endpoint`: that DynamoDB (the `DynamoDB:` line `npm start` prints);
 * - aws: the stack's `InsightsTableName` output, with the caller's credentials (none: `SkipError`).
 *
 * And the ticket catalog the page counts "never retrieved" out of (issue #28): against AWS the
 * function's own adapter (ListKnowledgeBaseDocuments) on the stack's `KnowledgeBaseId` and
 * `DataSourceId` outputs — none for a stack over an existing Knowledge Base without a data source,
 * or with `--table` (no outputs read); locally the ticket documents of the folders `npm start`
 * serves (`TICKETS_DIR`, default data/tickets, and the published tickets under `<DATA_DIR>/s3`).
 */
export interface InsightsSource {
  readonly store: InsightsStore;
  /** Where the figures come from, for the report's last line. */
  readonly label: string;
  /** The tickets to count "never retrieved" out of; absent: the report says it cannot list them. */
  readonly catalog?: TicketCatalog;
  /** Where the catalog comes from, or why there is none, for the report's last lines. */
  readonly catalogLabel: string;
  close(): Promise<void>;
}

/** The local stack's table prefix (`startLocalServices`). */
const LOCAL_TABLE_PREFIX = 'local-';
const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export async function openInsightsStore(options: {
  readonly target: 'local' | 'aws';
  readonly endpoint?: string;
  readonly table?: string;
  /** The environment variable naming the stack (`INSIGHTS_STACK_NAME`, `EVAL_STACK_NAME`). */
  readonly stackNameVariable: string;
}): Promise<InsightsSource> {
  if (options.target === 'aws') {
    const stack = await readDeployedStack(options.stackNameVariable, {
      outputs: options.table === undefined,
    });
    const tableName = options.table ?? requireOutput(stack, stackOutputNames.insightsTable);
    const client = new DynamoDBClient({ region: stack.region });
    const knowledgeBaseId = stack.outputs[stackOutputNames.knowledgeBaseId];
    const dataSourceId = stack.outputs[stackOutputNames.dataSourceId];
    const agent =
      knowledgeBaseId && dataSourceId
        ? new BedrockAgentClient({ region: stack.region })
        : undefined;
    return {
      store: createInsightsStoreOn(client, tableName),
      label: `table ${tableName} of stack ${stack.stackName}, ${stack.region}`,
      ...(agent && knowledgeBaseId && dataSourceId
        ? {
            catalog: createKnowledgeBaseTicketCatalog({
              client: agent,
              knowledgeBaseId,
              dataSourceId,
              log: {
                info: () => undefined,
                error: () => undefined,
                warn: (message, fields) =>
                  console.error(`npm run insights: ${message} (${String(fields?.error)})`),
              },
            }),
            catalogLabel: `ticket catalog: data source ${dataSourceId} of Knowledge Base ${knowledgeBaseId} (ListKnowledgeBaseDocuments)`,
          }
        : {
            catalogLabel:
              options.table === undefined
                ? `ticket catalog: none — stack ${stack.stackName} has no ${stackOutputNames.dataSourceId} output (an existing Knowledge Base), so the tickets cannot be listed`
                : 'ticket catalog: none — with --table the stack outputs are not read, so the tickets are not listed',
          }),
      close: async () => {
        client.destroy();
        agent?.destroy();
      },
    };
  }
  const local = options.endpoint
    ? undefined
    : await startDynamoDbLocal({
        port: 0,
        dataDir: join(process.env.DATA_DIR || '.data', 'dynamodb'),
      });
  const endpoint = options.endpoint ?? local?.endpoint ?? '';
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: localCredentials,
  });
  try {
    const tables = await createTables(client, LOCAL_TABLE_PREFIX);
    const tableName = options.table ?? tables.insights;
    const ticketFolders = localTicketFolders();
    return {
      store: createInsightsStoreOn(client, tableName),
      catalog: { issueIds: async () => ticketFolderIssueIds(ticketFolders) },
      catalogLabel: `ticket catalog: the ticket documents of ${ticketFolders.join(' and ')}`,
      label: `table ${tableName} of ${local ? `the local stack's data (${process.env.DATA_DIR || '.data'}/dynamodb)` : endpoint}`,
      close: async () => {
        client.destroy();
        await local?.stop();
      },
    };
  } catch (error) {
    client.destroy();
    await local?.stop();
    throw error;
  }
}

/**
 * The DynamoDB insights store on `tableName` through `client`, with the deployment's retention
 * (cdk.json `retentionDays`): what the commands write — the evaluation run — expires as the
 * function's own writes do.
 */
export function createInsightsStoreOn(client: DynamoDBClient, tableName: string): InsightsStore {
  const context = JSON.parse(readFileSync('cdk.json', 'utf8')).context ?? {};
  return createDynamoDbInsightsStore({
    documents: DynamoDBDocumentClient.from(client),
    tableName,
    retentionDays: Number(context.retentionDays ?? 90),
    now: () => new Date(),
  });
}

/** The folders `npm start` serves as its Knowledge Base: TICKETS_DIR and the published tickets. */
function localTicketFolders(): string[] {
  const dataDir = process.env.DATA_DIR || '.data';
  const keyPrefix = process.env.KNOWLEDGE_KEY_PREFIX || 'tickets/published/';
  return [
    resolve(process.env.TICKETS_DIR || join('data', 'tickets')),
    resolve(dataDir, 's3', LOCAL_KNOWLEDGE_BUCKET, ...keyPrefix.split('/').filter(Boolean)),
  ];
}

/**
 * The issue ids of the ticket documents in `folders` as the local Knowledge Base indexes them: a
 * `<id>.md` beside its `.md.metadata.json` (one without is not indexed), named as
 * `ticketDocumentNames` names them. A folder that does not exist (nothing published) holds none.
 */
export function ticketFolderIssueIds(folders: readonly string[]): string[] {
  const issueIds = new Set<string>();
  for (const folder of folders) {
    let names: string[];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    const present = new Set(names);
    for (const name of names) {
      const issueId = issueIdOfDocumentName(name);
      if (issueId !== undefined && present.has(`${name}.metadata.json`)) issueIds.add(issueId);
    }
  }
  return [...issueIds].sort();
}
