import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDynamoDbInsightsStore } from '../functions/adapters/dynamodb/insights-store.js';
import type { InsightsStore } from '../functions/insights/ports.js';
import { stackOutputNames } from '../lib/service-desk-stack.js';
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
 */
export interface InsightsSource {
  readonly store: InsightsStore;
  /** Where the figures come from, for the report's last line. */
  readonly label: string;
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
    return {
      store: createInsightsStoreOn(client, tableName),
      label: `table ${tableName} of stack ${stack.stackName}, ${stack.region}`,
      close: async () => client.destroy(),
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
    return {
      store: createInsightsStoreOn(client, tableName),
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
  });
}
