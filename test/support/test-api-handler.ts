import { createHandler } from '../../functions/api/create-handler.js';
import { readFunctionConfig } from '../../functions/settings/function-settings.js';
import { readTestTimings } from './test-timings.js';

/**
 * The API handler the test stacks bundle: the production entry (functions/api/handler.ts) plus
 * the shorter timings a test asks for (`testTimingsEnvironment`), which no deployment can set.
 */
export const handler = createHandler(readFunctionConfig(process.env), {
  timings: readTestTimings(process.env),
});
