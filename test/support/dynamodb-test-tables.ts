import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import type { TableNames } from '../../functions/adapters/dynamodb/table-definitions.js';
import { createTables } from '../../local/create-tables.js';

export interface TestTables {
  readonly client: DynamoDBClient;
  readonly endpoint: string;
  readonly tables: TableNames;
  /** Deletes the tables and closes the client; call it in `afterAll`. */
  dispose(): Promise<void>;
}

/** A client for the run's DynamoDB Local (started by `dynamodb-local-global-setup.ts`). */
export function createTestClient(): { client: DynamoDBClient; endpoint: string } {
  const endpoint = inject('dynamoDbEndpoint');
  if (!endpoint) {
    throw new Error(inject('dynamoDbLocalError') ?? 'DynamoDB Local is not running');
  }
  const client = new DynamoDBClient({
    endpoint,
    region: 'local',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    // Tests hammer one partition on purpose; let the store, not the SDK, decide about retries.
    maxAttempts: 3,
  });
  return { client, endpoint };
}

/**
 * Fresh, uniquely prefixed conversation tables on the shared DynamoDB Local, so test files can
 * run in parallel without seeing each other's data.
 *
 * @example
 * let t: TestTables;
 * beforeAll(async () => { t = await createTestTables('store'); });
 * afterAll(() => t.dispose());
 */
export async function createTestTables(label = 'test'): Promise<TestTables> {
  const { client, endpoint } = createTestClient();
  const prefix = `${label}-${randomUUID().slice(0, 8)}-`;
  const tables = await createTables(client, prefix);
  return {
    client,
    endpoint,
    tables,
    async dispose() {
      await Promise.all(
        Object.values(tables).map((TableName) =>
          client.send(new DeleteTableCommand({ TableName })).catch(() => undefined),
        ),
      );
      client.destroy();
    },
  };
}
