import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  createDynamoDbConversationStore,
  type DynamoDbConversationStoreOptions,
} from '../../../functions/adapters/dynamodb/create-dynamodb-conversation-store.js';
import type { ConversationStore, Owner } from '../../../functions/chat/ports.js';
import type { TestTables } from '../../support/dynamodb-test-tables.js';

export const alice: Owner = { tenantId: 'acme', userId: 'alice' };
export const bob: Owner = { tenantId: 'acme', userId: 'bob' };

/** A store on the test tables — one per simulated Lambda container (each has its own cache). */
export function createStore(
  t: TestTables,
  options: Partial<DynamoDbConversationStoreOptions> = {},
): ConversationStore {
  return createDynamoDbConversationStore({
    client: t.client,
    tables: t.tables,
    retentionDays: 30,
    cacheMaxBytes: 1024 * 1024,
    now: () => new Date(),
    ...options,
  });
}

/** Counts DynamoDB operations sent through `client` (document-client commands included). */
export function countRequests(client: DynamoDBClient) {
  const counts = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName).replace(/Command$/, '');
      counts.set(name, (counts.get(name) ?? 0) + 1);
      return next(args);
    },
    { step: 'initialize', name: 'countRequests' },
  );
  return {
    count: (name: string) => counts.get(name) ?? 0,
    reset: () => counts.clear(),
  };
}

/** A promise that can be resolved from outside — to pause a writer at the commit seam. */
export function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}
