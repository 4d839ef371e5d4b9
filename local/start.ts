import { join } from 'node:path';
import { buildWeb, isWebBuildStale } from '../scripts/build-web.js';
import { assertJavaAvailable, JAVA_REQUIRED_MESSAGE } from './dynamodb-local.js';
import { startLocalStack } from './start-local-stack.js';

/**
 * `npm start`: builds what is stale, starts the local stack with data under `DATA_DIR` (`.data/`),
 * prints the URL, and stops every child on SIGINT (Ctrl-C), SIGTERM (a supervisor: systemd, a
 * container, CI, `timeout`), SIGHUP (a closed terminal) or when its parent dies.
 *
 * The script is `exec node --import tsx local/start.ts`: npm forwards SIGINT and SIGTERM to the
 * one process it spawned, the `sh -c` of the script — without `exec` that shell dies alone and
 * this process never hears of it (dash does not forward signals), nor would a `tsx` CLI between
 * them reliably (it escalates to SIGKILL when the child is slow to acknowledge). With `exec`
 * this process is npm's child, so it gets the signal and notices npm itself dying.
 */
// The SDK warns on Node 20 that releases after January 2027 need Node 22 (Lambda runs 22).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const started = Date.now();
const log = (message: string) => console.log(`[start] ${message}`);
const dataDir = process.env.DATA_DIR || '.data';
/** A stop that hangs (a stuck socket, a child ignoring SIGTERM) must not keep the stack alive. */
const STOP_TIMEOUT_MS = 10_000;

let stack: Awaited<ReturnType<typeof startLocalStack>> | undefined;
let stopping = false;
const shutdown = async (reason: string) => {
  if (stopping) return;
  stopping = true;
  log(`stopping (${reason})…`);
  // While the stack is still starting, exiting is the stop: DynamoDB Local's runner kills the
  // JVM on exit, and execution environments end when their stdin (our pipe) closes.
  if (stack) {
    const timeout = new Promise((done) => setTimeout(done, STOP_TIMEOUT_MS).unref());
    await Promise.race([stack.stop(), timeout]);
  }
  process.exit(0);
};
// Registered before anything starts, so a signal during the build or the start is not lost.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => void shutdown(signal));
}
watchParent(() => void shutdown('parent process exited'));

try {
  // Fail in a second, not after the build, when DynamoDB Local cannot run here.
  if (!process.env.DYNAMODB_ENDPOINT) assertJavaAvailable();
  if (await isWebBuildStale()) {
    log('building the web app…');
    await buildWeb();
  }
  // The handler is bundled (when stale) into .data/build/api/ and run by the real Lambda
  // runtime client, one process per execution environment.
  stack = await startLocalStack({
    dataDir: join(dataDir, 'dynamodb'),
    // Published tickets (knowledge capture) are files under <DATA_DIR>/s3/, kept across restarts.
    s3Dir: join(dataDir, 's3'),
    // The Knowledge Base index's snapshot and analysis cache, so a restart over a large folder is fast.
    bedrockOptions: { indexCacheDirectory: join(dataDir, 'local-index') },
    log: (message) => console.error(`[api] ${message}`),
  });
  const offline = stack.functionEnvironment.MODEL_ID?.startsWith('offline.');
  log(`model: ${stack.functionEnvironment.MODEL_ID}${offline ? ' (offline responder)' : ''}`);
  log(
    `knowledge base: ${stack.functionEnvironment.KNOWLEDGE_BASE_ID}; DynamoDB: ${stack.dynamoDbEndpoint}`,
  );
  const bucket = stack.functionEnvironment.KNOWLEDGE_BUCKET;
  log(
    bucket
      ? `knowledge capture: bucket ${bucket}${stack.s3 ? ` (local S3, ${stack.s3.root})` : ''}`
      : 'knowledge capture: off (set KNOWLEDGE_BUCKET and KNOWLEDGE_DATA_SOURCE_ID for a real Knowledge Base)',
  );
  const signIn = stack.signIn;
  if (signIn?.localProvider) {
    log(`sign-in: local OpenID provider ${signIn.issuer} (AUTH_MODE=oidc); any password`);
    for (const account of signIn.localProvider.accounts)
      log(`  ${account.login.padEnd(9)} ${account.name} — roles ${account.roles.join(', ')}`);
  } else if (signIn) log(`sign-in: ${signIn.issuer} (client ${signIn.clientId})`);
  else log('sign-in: none (AUTH_MODE=local: the dev-user header, local only)');
  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`\n  Service-desk assistant: ${stack.url}\n`);
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  if (message === JAVA_REQUIRED_MESSAGE) console.error(message);
  else if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    console.error(
      `Port ${process.env.PORT ?? 3000} is in use. Stop the other process or run: PORT=3001 npm start`,
    );
  } else
    console.error(
      `npm start failed: ${error instanceof Error ? (error.stack ?? message) : message}`,
    );
  process.exit(1);
}

/**
 * Calls `onOrphaned` once this process's parent is gone (it was re-parented): npm or a supervisor
 * killed with SIGKILL runs no handler and forwards nothing, but must not leave the stack serving.
 * Linux has no portable parent-death signal for Node, so the parent id is polled.
 */
function watchParent(onOrphaned: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onOrphaned();
  }, 500);
  timer.unref();
}
