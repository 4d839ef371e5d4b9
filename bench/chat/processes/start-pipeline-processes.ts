import { type BedrockProcess, startBedrockProcess } from './bedrock-process-client.js';
import { type FunctionProcess, startFunctionProcess } from './function-process-client.js';

export interface PipelineProcesses {
  readonly bedrock: BedrockProcess;
  readonly function: FunctionProcess;
  /** Stops the function (and its DynamoDB Local), then the endpoint. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts the layout of production on one machine: process B (local Bedrock endpoint), then
 * process C (the function, pointed at B), each with an IPC channel to this process, which plays
 * the clients. If C fails to start, B is stopped before the error is rethrown.
 */
export async function startPipelineProcesses(): Promise<PipelineProcesses> {
  const bedrock = await startBedrockProcess();
  let fn: FunctionProcess;
  try {
    fn = await startFunctionProcess(bedrock.endpoint);
  } catch (error) {
    await bedrock.process.stop();
    throw error;
  }
  return {
    bedrock,
    function: fn,
    stop: async () => {
      try {
        await fn.process.stop();
      } finally {
        await bedrock.process.stop();
      }
    },
  };
}
