import type { ApiTimings } from '../../functions/api/route-context.js';

/**
 * The intervals every test harness shortens: a stopped answer is noticed within 50 ms instead of
 * a second, so stop and failure paths finish quickly. Heartbeats and the generation lease keep
 * their production values unless a test sets its own (`timings`).
 */
export const TEST_TIMINGS: Partial<ApiTimings> = { stopPollMs: 50 };

/** The production handler with the timings a test asks for (test-api-handler.ts). */
export const TEST_API_HANDLER_ENTRY = 'test/support/test-api-handler.ts';

/**
 * The variable the test handler entry (`test-api-handler.ts`) reads its timings from, for the
 * bundled handler in the local stack's execution environments. No production code reads it.
 */
const TEST_TIMINGS_VARIABLE = 'TEST_API_TIMINGS';

/** The function environment that gives the test handler entry `timings`. */
export function testTimingsEnvironment(timings: Partial<ApiTimings>): Record<string, string> {
  return { [TEST_TIMINGS_VARIABLE]: JSON.stringify(timings) };
}

/** The timings `testTimingsEnvironment` wrote; none when the variable is unset. */
export function readTestTimings(
  environment: Record<string, string | undefined>,
): Partial<ApiTimings> {
  const text = environment[TEST_TIMINGS_VARIABLE];
  return text ? (JSON.parse(text) as Partial<ApiTimings>) : {};
}
