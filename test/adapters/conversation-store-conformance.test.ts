import { afterAll, beforeAll } from 'vitest';
import { describeConversationStore } from '../support/conversation-store-conformance.js';
import { createTestTables, type TestTables } from '../support/dynamodb-test-tables.js';
import { createInMemoryConversationStore } from '../support/in-memory-conversation-store.js';
import { createStore } from './dynamodb/store-fixture.js';

// One suite, two stores: the fake the in-process tests run on must behave as the real one does.

let t: TestTables;
beforeAll(async () => {
  t = await createTestTables('conformance');
});
afterAll(() => t?.dispose());

describeConversationStore('the DynamoDB store on DynamoDB Local', async () => createStore(t));
describeConversationStore('the in-memory store', async () => createInMemoryConversationStore());
