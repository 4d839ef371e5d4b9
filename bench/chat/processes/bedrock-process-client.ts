import { fileURLToPath } from 'node:url';
import type { ModelScript } from '../../../local/bedrock/model-script.js';
import type {
  RecordedConverseRequest,
  RecordedRetrieveRequest,
} from '../../../local/bedrock/recorded-requests.js';
import type { BedrockProcessReady } from './bedrock-process.js';
import { type BenchProcess, forkBenchProcess } from './fork-bench-process.js';
import type { ProcessStats } from './process-stats.js';

/** Process B (the local Bedrock endpoint) as the bench's main process drives it. */
export interface BedrockProcess {
  readonly process: BenchProcess<BedrockProcessReady>;
  /** Both `BEDROCK_RUNTIME_ENDPOINT` and `BEDROCK_AGENT_RUNTIME_ENDPOINT` (one port). */
  readonly endpoint: string;
  enqueueScripts(scripts: readonly ModelScript[]): Promise<void>;
  /** Marker → wall-clock time its fragment was written, for fragments sent since the last call. */
  takeSentAt(): Promise<Map<string, number>>;
  /** Requests received since the last call. */
  takeRequests(): Promise<{
    retrieve: RecordedRetrieveRequest[];
    converse: RecordedConverseRequest[];
  }>;
  statsStart(): Promise<void>;
  statsStop(): Promise<ProcessStats>;
}

const ENTRY = fileURLToPath(new URL('./bedrock-process.ts', import.meta.url));

/** Forks process B and waits until its endpoint listens. */
export async function startBedrockProcess(): Promise<BedrockProcess> {
  const child = await forkBenchProcess<BedrockProcessReady>(ENTRY);
  return {
    process: child,
    endpoint: child.ready.endpoint,
    enqueueScripts: (scripts) => child.call('enqueueScripts', scripts),
    takeSentAt: async () => new Map(await child.call<[string, number][]>('takeSentAt')),
    takeRequests: () => child.call('takeRequests'),
    statsStart: () => child.call('statsStart'),
    statsStop: () => child.call('statsStop'),
  };
}
