import { DescribeTableCommand, DescribeTimeToLiveCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTables } from '../../local/create-tables.js';
import { createTestTables, type TestTables } from '../support/dynamodb-test-tables.js';

describe('createTables', () => {
  let t: TestTables;
  beforeAll(async () => {
    t = await createTestTables('create-tables');
  });
  afterAll(() => t.dispose());

  it('creates both tables with the sidebar index and TTL on expiresAt', async () => {
    const conversations = await t.client.send(
      new DescribeTableCommand({ TableName: t.tables.conversations }),
    );
    expect(conversations.Table?.TableStatus).toBe('ACTIVE');
    expect(conversations.Table?.LocalSecondaryIndexes?.map((index) => index.IndexName)).toEqual([
      'byUpdatedAt',
    ]);
    for (const TableName of Object.values(t.tables)) {
      const ttl = await t.client.send(new DescribeTimeToLiveCommand({ TableName }));
      expect(ttl.TimeToLiveDescription).toMatchObject({
        AttributeName: 'expiresAt',
        TimeToLiveStatus: 'ENABLED',
      });
    }
  });

  it('is idempotent: a second run keeps the tables and returns the same names', async () => {
    const prefix = t.tables.turns.slice(0, -'Turns'.length);
    await expect(createTables(t.client, prefix)).resolves.toEqual(t.tables);
  });
});
