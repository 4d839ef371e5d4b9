import { join } from 'node:path';
import { buildWeb, isWebBuildStale } from '../scripts/build-web.js';
import { assertJavaAvailable, JAVA_REQUIRED_MESSAGE } from './dynamodb-local.js';
import { startLocalStack } from './start-local-stack.js';

/**
 * `npm start`: builds what is stale, starts the local stack with data under `.data/`, prints the
 * URL, and stops every child on Ctrl-C.
 */
// The SDK warns on Node 20 that releases after January 2027 need Node 22 (Lambda runs 22).
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const started = Date.now();
const log = (message: string) => console.log(`[start] ${message}`);

try {
  // Fail in a second, not after the build, when DynamoDB Local cannot run here.
  if (!process.env.DYNAMODB_ENDPOINT) assertJavaAvailable();
  if (await isWebBuildStale()) {
    log('building the web app…');
    await buildWeb();
  }
  // The handler is bundled (when stale) into .data/build/api/ and run by the real Lambda
  // runtime client, one process per execution environment.
  const stack = await startLocalStack({
    dataDir: join('.data', 'dynamodb'),
    // Published tickets (knowledge capture) are files under .data/s3/, kept across restarts.
    s3Dir: join('.data', 's3'),
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
  log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  console.log(`\n  Service-desk assistant: ${stack.url}\n`);
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    log('stopping…');
    await stack.stop();
    process.exit(0);
  };
  // Ctrl-C reaches the whole process group; a closed terminal sends SIGHUP.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, shutdown);
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
