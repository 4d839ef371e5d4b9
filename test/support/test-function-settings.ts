/**
 * The function settings every test start of the API begins with — the local stack under the
 * runtime client (`startTestStack`) and the API in process (`startInProcessApi`) — so a test
 * moved from one to the other sees the same function. A test's own settings go over these; the
 * intervals that are constants in production (a stop poll, heartbeats) are `TEST_TIMINGS`.
 */
export const TEST_FUNCTION_SETTINGS: Readonly<Record<string, string>> = {
  // The request and chat lines and the EMF metrics are checked in observability.test.ts;
  // elsewhere they would only bury the test output.
  LOG_LEVEL: 'SILENT',
  // Tests run many chats per user; daily-budget.test.ts sets its own.
  DAILY_TOKEN_BUDGET: '0',
  METRICS: 'false',
};
