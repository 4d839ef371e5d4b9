import { fileURLToPath } from 'node:url';
import { type BenchProcess, forkBenchProcess } from './fork-bench-process.js';
import type { FunctionProcessReady } from './function-process.js';
import type { ProcessStats } from './process-stats.js';

/** Process C (Function URL emulator + handler + its DynamoDB Local) as the bench drives it. */
export interface FunctionProcess {
  readonly process: BenchProcess<FunctionProcessReady>;
  readonly url: string;
  readonly region: string;
  statsStart(): Promise<void>;
  statsStop(): Promise<ProcessStats>;
}

const ENTRY = fileURLToPath(new URL('./function-process.ts', import.meta.url));

/** Forks process C against the Bedrock endpoint of process B; waits until the function listens. */
export async function startFunctionProcess(bedrockEndpoint: string): Promise<FunctionProcess> {
  const child = await forkBenchProcess<FunctionProcessReady>(ENTRY, {
    env: { BENCH_BEDROCK_ENDPOINT: bedrockEndpoint },
  });
  return {
    process: child,
    url: child.ready.url,
    region: child.ready.region,
    statsStart: () => child.call('statsStart'),
    statsStop: () => child.call('statsStop'),
  };
}
