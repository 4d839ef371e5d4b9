/**
 * Process C of the pipeline-overhead bench: the function under test — the Function URL front and
 * the bundled handler in execution environments under the real runtime client (`startLocalStack`),
 * talking to the local Bedrock endpoint of process B (`BENCH_BEDROCK_ENDPOINT`) and to a
 * DynamoDB Local it starts itself (a java child process, stopped with it). The parent reads this
 * process's CPU time and event-loop delay over IPC. Forked by `startFunctionProcess`.
 *
 * Since issue 17 the handler runs in child processes, one per concurrent stream as in Lambda:
 * this process's figures now cover the Function URL front and the Runtime APIs only, not the
 * handler. Measuring the handler's CPU per fragment needs the environments' CPU (to be done).
 */
import { randomUUID } from 'node:crypto';
import { startLocalStack } from '../../../local/start-local-stack.js';
import { processStatsHandlers } from './process-stats.js';
import { serveParent } from './serve-parent.js';

/** What process C announces once the function listens. */
export interface FunctionProcessReady {
  /** Base URL of the Function URL emulator (`POST /api/chat`). */
  readonly url: string;
  readonly region: string;
}

await serveParent<FunctionProcessReady>({
  start: async () => {
    const endpoint = process.env.BENCH_BEDROCK_ENDPOINT;
    if (!endpoint) throw new Error('BENCH_BEDROCK_ENDPOINT is not set');
    const stack = await startLocalStack({
      port: 0,
      // Only these: the bench's own PORT, DYNAMODB_ENDPOINT… must not leak in.
      environment: { BEDROCK_RUNTIME_ENDPOINT: endpoint, BEDROCK_AGENT_RUNTIME_ENDPOINT: endpoint },
      tablePrefix: `bench-chat-${randomUUID().slice(0, 8)}-`,
      // One environment per concurrent stream (50 in the bench), as Lambda would scale.
      maxEnvironments: 64,
      log: () => undefined,
    });
    return {
      ready: { url: stack.url, region: stack.functionEnvironment.AWS_REGION ?? 'us-east-1' },
      stop: () => stack.stop(),
    };
  },
  // The handler runs in execution-environment processes (node, under the runtime client): their
  // CPU is the function's too. DynamoDB Local's java is not.
  handlers: processStatsHandlers({ descendants: (command) => command === 'node' }),
});
