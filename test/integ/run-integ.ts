/**
 * `npm run test:integ` — the acceptance suite (test/integ/acceptance-suite.ts) against the
 * deployed stack, or `-- --local` against the local stack started in this process. Prints the
 * report as markdown, writes it as markdown and JSON under `.data/` (paths printed at the end)
 * and exits 1 when a check failed. Without AWS credentials or without the stack it prints a
 * SKIPPED line with the reason and exits 0. Not part of `npm test`.
 *
 * Options:
 *   --local              dry run against a local stack started here (DynamoDB Local needs Java,
 *                        or DYNAMODB_ENDPOINT)
 *   --probes N           probe only the first N restricted tickets (default: all of data/tickets)
 *   --concurrency N      chats in flight during the probes (default 4)
 *   --report-dir DIR     where the report files go (default .data)
 *
 * Environment: INTEG_STACK_NAME, AWS_REGION, INTEG_EMAIL_DOMAIN, INTEG_MESSAGE (the timed chat),
 * INTEG_LONG_MESSAGE (the long answer); see aws-target.ts.
 */
// Before the SDK is loaded: its "Node 22 from January 2027" notice is noise in a report.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { parseArgs } from 'node:util';
import { SkipError } from '../../scripts/deployed-stack.js';
import { runAcceptanceSuite } from './acceptance-suite.js';
import { openAwsTarget } from './aws-target.js';
import { formatMarkdown, writeReport } from './integ-report.js';
import type { IntegTarget } from './integ-target.js';
import { openLocalTarget, startLocalTargetStack } from './local-target.js';

const { values } = parseArgs({
  options: {
    local: { type: 'boolean', default: false },
    probes: { type: 'string' },
    concurrency: { type: 'string', default: '4' },
    'report-dir': { type: 'string', default: '.data' },
  },
});

const log = (line: string) => console.error(`• ${line}`);

function positiveInteger(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`--${name} must be a positive integer, not ${text}`);
  return value;
}

async function main(): Promise<void> {
  const probeLimit = positiveInteger('probes', values.probes);
  const concurrency = positiveInteger('concurrency', values.concurrency);
  let target: IntegTarget;
  let stopStack = async () => {};
  if (values.local) {
    log('starting the local stack…');
    const stack = await startLocalTargetStack();
    stopStack = () => stack.stop();
    target = openLocalTarget(stack);
  } else {
    target = await openAwsTarget(log);
  }
  try {
    log(`target: ${target.label}`);
    const report = await runAcceptanceSuite(target, {
      message: process.env.INTEG_MESSAGE,
      probeLimit,
      concurrency,
      log,
    });
    console.log(formatMarkdown(report));
    const paths = await writeReport(report, values['report-dir']);
    console.log(`Report: ${paths.markdown}\nJSON:   ${paths.json}`);
    const failed = report.checks.filter((check) => check.status === 'fail');
    if (failed.length > 0) {
      console.log(`FAILED: ${failed.map((check) => check.id).join(', ')}`);
      process.exitCode = 1;
    } else {
      console.log('PASSED');
    }
  } finally {
    // Each on its own: a failed one must not leave the other behind or hide the result.
    await target.close().catch((error: unknown) => {
      console.error('Clean-up failed (the temporary user); remove it by hand:', error);
      process.exitCode = 1;
    });
    await stopStack();
  }
}

main().catch((error: unknown) => {
  if (error instanceof SkipError) {
    console.log(`\n*** SKIPPED: acceptance suite not run — ${error.message}. ***`);
    console.log(
      'Deploy the stack (docs/deploy.md) and provide credentials (AWS_PROFILE or AWS_* variables), or run the dry run: npm run test:integ -- --local',
    );
    return;
  }
  console.error('Acceptance suite failed to run:', error);
  process.exitCode = 1;
});
