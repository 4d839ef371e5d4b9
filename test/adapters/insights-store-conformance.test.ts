import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { createDynamoDbInsightsStore } from '../../functions/adapters/dynamodb/insights-store.js';
import { createTestTables, type TestTables } from '../support/dynamodb-test-tables.js';
import { createInMemoryInsightsStore } from '../support/in-memory-insights-store.js';
import { describeInsightsStore } from '../support/insights-store-conformance.js';

// One suite, two stores: the fake the in-process tests run on must behave as the real one does.

let t: TestTables;
beforeAll(async () => {
  t = await createTestTables('insights');
});
afterAll(() => t?.dispose());

describeInsightsStore('the DynamoDB store on DynamoDB Local', async () =>
  createDynamoDbInsightsStore({
    documents: DynamoDBDocumentClient.from(t.client),
    tableName: t.tables.insights,
    retentionDays: 90,
    now: () => new Date(),
  }),
);
describeInsightsStore('the in-memory store', async () => createInMemoryInsightsStore());
