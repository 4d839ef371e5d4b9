import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { defaultModelId } from '../../lib/config.js';

const run = promisify(execFile);

/**
 * Stands in for the Lambda runtime before the handler module loads: the `awslambda` global
 * middy needs at import (streamifyResponse), then times `await import(bundle)`.
 */
const PROBE = `
globalThis.awslambda = Object.assign(globalThis.awslambda ?? {}, {
  streamifyResponse: (handler) => handler,
  HttpResponseStream: { from: (stream) => stream },
});
const started = performance.now();
const cpuBefore = process.cpuUsage();
const module = await import(process.argv[2]);
const importMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
if (typeof module.handler !== 'function') throw new Error('no handler export');
process.stdout.write(
  JSON.stringify({ importMs, cpuMs: (cpu.user + cpu.system) / 1000, processMs: performance.now() }),
);
`;

/** The variables the handler validates at import, with local values (nothing is called). */
const FUNCTION_ENVIRONMENT = {
  AUTH_MODE: 'local',
  CONVERSATIONS_TABLE: 'bench-Conversations',
  TURNS_TABLE: 'bench-Turns',
  KNOWLEDGE_BASE_ID: 'BENCHKB',
  MODEL_ID: 'offline.bench',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'local',
  AWS_SECRET_ACCESS_KEY: 'local',
};

/**
 * The stack's own defaults where they differ from the local values above: Cognito sign-in (its
 * verifier builds jose's remote key set at init, which touches `Headers` and so loads Node's
 * fetch implementation) and the default model, which has a price (no warning logged at init).
 * The ids are placeholders; nothing is fetched before a request.
 */
export const STACK_DEFAULTS_ENVIRONMENT = {
  AUTH_MODE: 'cognito',
  COGNITO_USER_POOL_ID: 'us-east-1_BenchPool',
  COGNITO_CLIENT_ID: 'benchclientid',
  MODEL_ID: defaultModelId,
};

/** One way to start the function: its NODE_OPTIONS and extra environment variables. */
export interface ModuleInitVariant {
  readonly nodeOptions: string;
  readonly environment?: Readonly<Record<string, string>>;
}

/**
 * Lambda with active tracing and `tracing: true` deployed: the Tracer is on, so the handler
 * loads it and the X-Ray SDK (Lambda mode) at init. Nothing is sent before a request.
 */
export const TRACING_ON_ENVIRONMENT = {
  POWERTOOLS_TRACE_ENABLED: 'true',
  AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
  LAMBDA_TASK_ROOT: '/var/task',
  _X_AMZN_TRACE_ID: 'Root=1-67a1b2c3-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1',
} as const;

export interface ModuleInit {
  /** `await import(bundle)` in a fresh process, ms, one per spawn. */
  readonly importMs: number[];
  /**
   * The CPU time of that import (all of the process's threads, user + system), ms: what a
   * shared machine's load changes far less than the wall time.
   */
  readonly cpuMs: number[];
  /** Process start → import done (Node bootstrap included), ms. */
  readonly processMs: number[];
}

/**
 * Spawns a fresh `node` `times` times per variant and measures the module init of the bundle
 * there, with the variant's NODE_OPTIONS (the deployed function sets none) and environment.
 */
export async function measureModuleInit(
  bundlePath: string,
  workDir: string,
  variants: Record<string, ModuleInitVariant>,
  times: number,
): Promise<Map<string, ModuleInit>> {
  const probe = join(workDir, 'probe-module-init.mjs');
  await writeFile(probe, PROBE);
  const results = new Map<string, ModuleInit>(
    Object.keys(variants).map((name) => [name, { importMs: [], cpuMs: [], processMs: [] }]),
  );
  // Interleaved, so a burst of load on the shared machine hits every variant alike.
  for (let index = 0; index < times; index++) {
    for (const [name, variant] of Object.entries(variants)) {
      const { stdout } = await run(process.execPath, [probe, pathToFileURL(bundlePath).href], {
        env: {
          PATH: process.env.PATH,
          NODE_OPTIONS: variant.nodeOptions,
          ...FUNCTION_ENVIRONMENT,
          ...variant.environment,
        },
      });
      const figures = JSON.parse(stdout) as { importMs: number; cpuMs: number; processMs: number };
      results.get(name)?.importMs.push(figures.importMs);
      results.get(name)?.cpuMs.push(figures.cpuMs);
      results.get(name)?.processMs.push(figures.processMs);
    }
  }
  return results;
}
