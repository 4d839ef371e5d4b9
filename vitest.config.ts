import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'web/src/**/*.test.{ts,tsx}'],
    exclude: ['test/integ/**', 'node_modules/**'],
    // DynamoDB Local is started once for the whole run (it needs Java); see the file for why.
    globalSetup: ['test/support/dynamodb-local-global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
