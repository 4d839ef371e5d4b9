import type { TestProject } from 'vitest/node';
import { type DynamoDbLocal, startDynamoDbLocal } from '../../local/dynamodb-local.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * Endpoint of the in-memory DynamoDB Local shared by the whole run, or `undefined` when it
     * could not start (no Java); then `dynamoDbLocalError` holds the one-line reason.
     */
    dynamoDbEndpoint: string | undefined;
    dynamoDbLocalError: string | undefined;
  }
}

/**
 * vitest globalSetup: one in-memory DynamoDB Local for the whole run (the JVM takes ~2 s to start,
 * too slow per file). Tests read the endpoint with `inject('dynamoDbEndpoint')` — or, simpler, call
 * `createTestTables()` from `./dynamodb-test-tables.ts`, which also gives each file its own tables.
 * The endpoint is also exported as `process.env.DYNAMODB_LOCAL_ENDPOINT` for code that cannot import
 * vitest. Set `DYNAMODB_LOCAL_ENDPOINT` yourself to reuse an instance already running.
 *
 * Without Java the run goes on (tests that do not touch DynamoDB still pass) and every test that
 * asks for tables fails with the install hint.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const preset = process.env.DYNAMODB_LOCAL_ENDPOINT;
  if (preset) {
    project.provide('dynamoDbEndpoint', preset);
    project.provide('dynamoDbLocalError', undefined);
    return async () => {};
  }
  let local: DynamoDbLocal | undefined;
  try {
    local = await startDynamoDbLocal({ port: 0 });
  } catch (error) {
    const message = (error as Error).message;
    console.warn(`[dynamodb-local] ${message.split('\n')[0]}`);
    project.provide('dynamoDbEndpoint', undefined);
    project.provide('dynamoDbLocalError', message);
    return async () => {};
  }
  process.env.DYNAMODB_LOCAL_ENDPOINT = local.endpoint;
  project.provide('dynamoDbEndpoint', local.endpoint);
  project.provide('dynamoDbLocalError', undefined);
  return async () => {
    delete process.env.DYNAMODB_LOCAL_ENDPOINT;
    await local?.stop();
  };
}
