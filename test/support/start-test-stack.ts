import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import type { ApiTimings } from '../../functions/api/route-context.js';
import {
  type LocalStack,
  type LocalStackOptions,
  startLocalStack,
} from '../../local/start-local-stack.js';
import { TEST_FUNCTION_SETTINGS } from './test-function-settings.js';
import { TEST_TIMINGS, testTimingsEnvironment } from './test-timings.js';

/**
 * The local stack for end-to-end tests: the run's shared DynamoDB Local with tables of its own,
 * the run's handler bundle in execution environments running the real runtime client (two
 * provisioned, more created on demand), the local Bedrock endpoint without pacing, a random
 * port, the test function settings (`TEST_FUNCTION_SETTINGS`) and the tests' short stop poll
 * (`TEST_TIMINGS`) so failure paths finish quickly.
 */
export async function startTestStack(
  options: Partial<LocalStackOptions> & {
    /** Timings over the tests' (`TEST_TIMINGS`), e.g. a short generation lease. */
    readonly timings?: Partial<ApiTimings>;
  } = {},
): Promise<LocalStack & { bedrock: NonNullable<LocalStack['bedrock']> }> {
  const { timings, ...stackOptions } = options;
  const endpoint = inject('dynamoDbEndpoint');
  if (!endpoint) throw new Error(inject('dynamoDbLocalError') ?? 'DynamoDB Local is not running');
  const stack = await startLocalStack({
    port: 0,
    responderPacing: { minMs: 0, maxMs: 0 },
    tablePrefix: `e2e-${randomUUID().slice(0, 8)}-`,
    handlerBundle: inject('apiHandlerBundle'),
    // Two environments initialised while the test starts: a test's first request, and a second
    // one made while a chat streams (the stop route), find a warm environment instead of waiting
    // for a cold start on a loaded machine.
    provisionedEnvironments: 2,
    environment: { DYNAMODB_ENDPOINT: endpoint },
    log: () => undefined,
    ...stackOptions,
    functionEnvironment: {
      ...TEST_FUNCTION_SETTINGS,
      ...testTimingsEnvironment({ ...TEST_TIMINGS, ...timings }),
      ...options.functionEnvironment,
    },
  });
  if (!stack.bedrock) throw new Error('expected the local Bedrock endpoint');
  return stack as LocalStack & { bedrock: NonNullable<LocalStack['bedrock']> };
}
