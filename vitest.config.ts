import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    exclude: ['test/integ/**', 'node_modules/**'],
    // DynamoDB Local is started once for the whole run (it needs Java); see the file for why.
    globalSetup: ['test/support/dynamodb-local-global-setup.ts'],
    // The SDK's "Node 22 from January 2027" notice, printed once per worker, is noise here.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
