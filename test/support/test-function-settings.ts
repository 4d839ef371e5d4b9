/**
 * The function settings every test start of the API begins with — the local stack under the
 * runtime client (`startTestStack`) and the API in process (`startInProcessApi`) — so a test
 * moved from one to the other sees the same function. A test's own settings go over these.
 */
export const TEST_FUNCTION_SETTINGS: Readonly<Record<string, string>> = {
  // A failure path (a stream that hangs, a stop) finishes quickly.
  HEARTBEAT_MS: '10000',
  STOP_POLL_MS: '50',
  // The request and chat lines and the EMF metrics are checked in observability.test.ts;
  // elsewhere they would only bury the test output.
  LOG_LEVEL: 'SILENT',
  // Tests run many chats per user; daily-budget.test.ts sets its own.
  DAILY_TOKEN_BUDGET: '0',
  METRICS: 'false',
};
