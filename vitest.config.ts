import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import FileOrder from './test/support/file-order.js';

/** Pure code: no Java, no servers — `npx vitest run --project unit` answers in about a second. */
const unitTests = [
  'test/chat/**/*.test.ts',
  'test/tool-input/**/*.test.ts',
  'test/sse/**/*.test.ts',
  'test/web/**/*.test.{ts,tsx}',
  'test/observability/**/*.test.ts',
  'test/knowledge/**/*.test.ts',
  'test/handoff/**/*.test.ts',
  'test/mail-draft/**/*.test.ts',
  'test/model-call/**/*.test.ts',
  'test/insights/**/*.test.ts',
  'test/surges/**/*.test.ts',
  'test/contract/**/*.test.ts',
  // The route table alone, no adapters (the rules through the whole API: test/api/bad-input).
  'test/api/routes.test.ts',
  'test/api/import-on-first-call.test.ts',
  'test/tickets/**/*.test.ts',
  'test/scripts/import/**/*.test.ts',
  'test/ticket-import/**/*.test.ts',
  'test/ticket-sync/**/*.test.ts',
  'test/scripts/insights/**/*.test.ts',
  'test/architecture/**/*.test.ts',
  // The feedback eval's scoring (the eval command itself needs the local Knowledge Base).
  'test/eval/feedback-evaluation.test.ts',
];

/**
 * The 20-writer stress test runs first, with only the unit files beside it (pure code, one
 * worker), and everything else after it. Its writers lose more rounds the busier the machine,
 * and each lost round is a transaction in DynamoDB Local: beside the integration and browser
 * files the test took 108–182 s and the shared JVM used 71–88 CPU-seconds a run; in the first
 * group the test takes 44–47 s and the JVM 43–47, and a whole run 468–477 CPU-seconds instead
 * of 553–584 (ADR 0016).
 */
const contentionTests = ['test/adapters/dynamodb/concurrent-appends.test.ts'];
/** Vitest runs the groups one after another; a group's projects share its worker count. */
const firstGroup = { sequence: { groupOrder: 0 }, maxWorkers: 2 };
/** The rest of the run, with the run's worker count (`maxWorkers` below). */
const secondGroup = { sequence: { groupOrder: 1 } };

/** The run's one DynamoDB Local (it needs Java); see the file. */
const dynamoDbLocalSetup = 'test/support/dynamodb-local-global-setup.ts';
/** What a file starting a local stack needs, once per project's run. */
const stackSetups = [dynamoDbLocalSetup, 'test/support/api-handler-bundle-global-setup.ts'];

export default defineConfig({
  test: {
    // The SDK's "Node 22 from January 2027" notice, printed once per worker, is noise here.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Four files at a time on two cores: integration and browser files wait on servers, Java,
    // Chromium and paced streams as much as they compute (vitest's default there is one). All
    // projects share the one pool, so a waiting browser file leaves its core to a CPU-bound one
    // (ADR 0016 has the figures).
    maxWorkers: Math.max(4, availableParallelism() + 2),
    // The longest files first, the browser files spread among the others (see the file).
    sequence: { sequencer: FileOrder },
    projects: [
      {
        extends: true,
        test: {
          name: 'contention',
          include: contentionTests,
          // The same DynamoDB Local as the integration files: vitest starts every project's
          // global setups before the first group and tears them down after the last, and the
          // second setup finds the first's endpoint in DYNAMODB_LOCAL_ENDPOINT.
          globalSetup: [dynamoDbLocalSetup],
          ...firstGroup,
        },
      },
      {
        extends: true,
        test: {
          name: 'unit',
          ...firstGroup,
          include: unitTests,
          // Pure code shares one process per worker: with a process per file the project took
          // 73 s, shared 21 s, for the same 969 tests (ADR 0016). No unit file leaves a global
          // changed (fake timers are restored; no env, stubs or module mocks).
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'cdk',
          ...secondGroup,
          include: ['test/cdk/**/*.test.ts'],
          // Synthesis only, no servers: one process per worker spares each file its own import
          // of aws-cdk-lib — 134 s with a process per file, 65 s shared, same 154 tests.
          isolate: false,
          globalSetup: ['test/support/run-cache-global-setup.ts'],
          // Synthesized apps land in the run's folder, removed at its end (see the file).
          setupFiles: ['test/support/run-temp-dir-setup.ts'],
          // No asset bundling (CDK reads this context in every App, as the CLI passes it): the
          // tests read templates, and the functions' entries are stand-ins esbuild would bundle
          // only to be thrown away — 36 of the project's 94 CPU-seconds. The bundles `cdk deploy`
          // uploads are checked once, with bundling on: test/cdk/function-bundles.test.ts.
          env: { CDK_CONTEXT_JSON: JSON.stringify({ 'aws:cdk:bundling-stacks': [] }) },
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          ...secondGroup,
          // The browser files too (`npx vitest run test/browser` runs them alone): as a project
          // of their own, each ended a shared integration worker, whose successor imported the
          // stack's modules again — 27 test processes a run instead of 12, 211 CPU-seconds in
          // vitest's processes instead of 183 (ADR 0016).
          include: ['test/**/*.test.{ts,tsx}'],
          // One process per worker, its files one after another: 133 s and 218 CPU-seconds for
          // the 634 tests, against 229 s and 418 with a process per file (ADR 0016). What that
          // asks of a file: undo its env stubs and spies, stop its servers and browsers, and
          // load a module that reads its settings at load (a handler) fresh, after
          // `vi.resetModules()`, as a new execution environment would.
          isolate: false,
          exclude: [
            ...unitTests,
            ...contentionTests,
            'test/cdk/**',
            'test/integ/**',
            'node_modules/**',
          ],
          // DynamoDB Local is started once for the whole run (it needs Java); see the file for why.
          // The API handler is bundled once per run, for the execution environments of the test
          // stacks; the run cache holds the one web build of all browser files.
          globalSetup: [...stackSetups, 'test/support/run-cache-global-setup.ts'],
        },
      },
    ],
  },
});
