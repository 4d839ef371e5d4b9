import { DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyCommitFailure } from '../../../functions/adapters/dynamodb/versioned-commit.js';
import { createTestTables, type TestTables } from '../../support/dynamodb-test-tables.js';

/** Pins what the JS SDK v3 really exposes on a cancelled transaction, against DynamoDB Local. */
describe('TransactionCanceledException from the JS SDK v3', () => {
  let t: TestTables;
  let documents: DynamoDBDocumentClient;
  beforeAll(async () => {
    t = await createTestTables('cancellation');
    documents = DynamoDBDocumentClient.from(t.client);
    await documents.send(
      new PutCommand({
        TableName: t.tables.conversations,
        Item: { ownerId: 'o', conversationId: 'c', version: 2, updatedAt: 'x' },
      }),
    );
  });
  afterAll(() => t.dispose());

  const commit = (expected: number, token?: string) =>
    documents.send(
      new TransactWriteCommand({
        ...(token ? { ClientRequestToken: token } : {}),
        TransactItems: [
          {
            Update: {
              TableName: t.tables.conversations,
              Key: { ownerId: 'o', conversationId: 'c' },
              UpdateExpression: 'SET version = :next',
              ConditionExpression: 'version = :expected',
              ExpressionAttributeValues: { ':expected': expected, ':next': expected + 1 },
            },
          },
          {
            Put: {
              TableName: t.tables.turns,
              Item: { conversationKey: 'o#c', seq: expected + 1 },
              ConditionExpression: 'attribute_not_exists(conversationKey)',
            },
          },
        ],
      }),
    );

  it('carries CancellationReasons ordered like TransactItems, None for the items that were fine', async () => {
    const error = await commit(1).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      name: 'TransactionCanceledException',
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
    });
    expect(classifyCommitFailure(error)).toBe('retry');
  });

  it('rejects a token reused with other parameters as IdempotentParameterMismatchException', async () => {
    await commit(2, 'token-probe');
    const error = await commit(3, 'token-probe').catch((caught: unknown) => caught);
    expect((error as Error).name).toBe('IdempotentParameterMismatchException');
    expect(classifyCommitFailure(error)).toBe('token-mismatch');
  });
});
