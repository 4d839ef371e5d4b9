import {
  type AttributeDefinition,
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  ResourceNotFoundException,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb';
import {
  conversationsTable,
  insightsTable,
  type TableDefinition,
  type TableNames,
  tableDefinitions,
  turnsTable,
} from '../functions/adapters/dynamodb/table-definitions.js';

/**
 * Creates the tables (conversations, turns, insights) from the same definitions the CDK uses,
 * if they are missing, waits until they are ACTIVE and enables TTL. Safe to run on every start.
 *
 * @example
 * const tables = await createTables(client, 'local-');
 * // { conversations: 'local-Conversations', turns: 'local-Turns', insights: 'local-Insights' }
 */
export async function createTables(client: DynamoDBClient, prefix: string): Promise<TableNames> {
  await Promise.all(
    tableDefinitions.map((definition) =>
      createTable(client, prefix + definition.baseName, definition),
    ),
  );
  return {
    conversations: prefix + conversationsTable.baseName,
    turns: prefix + turnsTable.baseName,
    insights: prefix + insightsTable.baseName,
  };
}

/** Creates one table of `definition` if it is missing (the ticket sync's, for its tests). */
export async function createTable(
  client: DynamoDBClient,
  tableName: string,
  definition: TableDefinition,
) {
  if (!(await tableExists(client, tableName))) {
    try {
      await client.send(new CreateTableCommand(toCreateTableInput(tableName, definition)));
    } catch (error) {
      // Another process (a parallel test file, a second `npm start`) created it first.
      if (!(error instanceof ResourceInUseException)) throw error;
    }
  }
  await waitUntilTableExists({ client, maxWaitTime: 60, minDelay: 1 }, { TableName: tableName });
  await enableTimeToLive(client, tableName, definition.timeToLiveAttribute);
}

async function tableExists(client: DynamoDBClient, tableName: string): Promise<boolean> {
  try {
    await client.send(new DescribeTableCommand({ TableName: tableName }));
    return true;
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return false;
    throw error;
  }
}

async function enableTimeToLive(client: DynamoDBClient, tableName: string, attributeName: string) {
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: attributeName, Enabled: true },
      }),
    );
  } catch (error) {
    // Enabling TTL twice is a ValidationException ("TimeToLive is already enabled"); that is fine.
    if ((error as Error).name !== 'ValidationException') throw error;
  }
}

function toCreateTableInput(tableName: string, definition: TableDefinition) {
  const attributes = new Map<string, AttributeDefinition>();
  const keys = [
    definition.partitionKey,
    definition.sortKey,
    ...[...definition.localSecondaryIndexes, ...definition.globalSecondaryIndexes].flatMap(
      (index) => [index.partitionKey, index.sortKey],
    ),
  ];
  for (const key of keys) {
    attributes.set(key.name, { AttributeName: key.name, AttributeType: key.type });
  }
  const keySchema = (index: Pick<TableDefinition, 'partitionKey' | 'sortKey'>) => [
    { AttributeName: index.partitionKey.name, KeyType: 'HASH' as const },
    { AttributeName: index.sortKey.name, KeyType: 'RANGE' as const },
  ];
  const lsis = definition.localSecondaryIndexes.map((index) => ({
    IndexName: index.indexName,
    KeySchema: keySchema(index),
    Projection: { ProjectionType: 'ALL' as const },
  }));
  const gsis = definition.globalSecondaryIndexes.map((index) => ({
    IndexName: index.indexName,
    KeySchema: keySchema(index),
    Projection: { ProjectionType: 'ALL' as const },
  }));
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    AttributeDefinitions: [...attributes.values()],
    KeySchema: keySchema(definition),
    ...(lsis.length > 0 ? { LocalSecondaryIndexes: lsis } : {}),
    ...(gsis.length > 0 ? { GlobalSecondaryIndexes: gsis } : {}),
  };
}
