import { join } from 'node:path';
import { BedrockAgentRuntimeClient } from '@aws-sdk/client-bedrock-agent-runtime';
import {
  BedrockRuntimeClient,
  ConverseStreamCommand,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { z } from 'zod';
import { ANSWER_TOOL_NAME, answerSchema } from '../../../functions/contract/answer.js';
import {
  type LocalBedrockServer,
  startLocalBedrockServer,
} from '../../../local/bedrock/start-local-bedrock-server.js';

export const FIXTURE_TICKETS_DIR = join(import.meta.dirname, '../../fixtures/tickets');

/** Region and credentials of an SDK client aimed at a local endpoint (which checks neither). */
export const LOCAL_CLIENT_CONFIG = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
} as const;

/** The local endpoint on the fixture tickets, with no pacing, and real SDK clients aimed at it. */
export async function startFixtureServer(options: { maxAttempts?: number } = {}) {
  const server: LocalBedrockServer = await startLocalBedrockServer({
    ticketsDir: FIXTURE_TICKETS_DIR,
    pacing: { minMs: 0, maxMs: 0 },
  });
  const runtime = new BedrockRuntimeClient({
    ...LOCAL_CLIENT_CONFIG,
    endpoint: server.runtimeEndpoint,
    maxAttempts: options.maxAttempts ?? 1,
  });
  const agentRuntime = new BedrockAgentRuntimeClient({
    ...LOCAL_CLIENT_CONFIG,
    endpoint: server.agentRuntimeEndpoint,
    maxAttempts: 1,
  });
  return {
    server,
    runtime,
    agentRuntime,
    close: async () => {
      runtime.destroy();
      agentRuntime.destroy();
      await server.close();
    },
  };
}

/** A ConverseStream request as the chat function sends it: forced `submit_response`. */
export function converseInput(
  userText: string | readonly { role: 'user' | 'assistant'; text: string }[],
  options: { modelId?: string; maxTokens?: number } = {},
) {
  const turns =
    typeof userText === 'string' ? [{ role: 'user' as const, text: userText }] : userText;
  return new ConverseStreamCommand({
    modelId: options.modelId ?? 'offline.service-desk-responder',
    system: [{ text: 'You are an IT service-desk assistant.' }],
    messages: turns.map((turn) => ({ role: turn.role, content: [{ text: turn.text }] })),
    inferenceConfig: { maxTokens: options.maxTokens ?? 4096 },
    toolConfig: {
      tools: [
        {
          toolSpec: {
            name: ANSWER_TOOL_NAME,
            description: 'Submit the answer',
            // biome-ignore lint/suspicious/noExplicitAny: the SDK types the schema as a DocumentType
            inputSchema: { json: z.toJSONSchema(answerSchema) as any },
          },
        },
      ],
      toolChoice: { tool: { name: ANSWER_TOOL_NAME } },
    },
  });
}

/** Every event of a ConverseStream response, as the SDK decoded it. */
export async function collectEvents(
  runtime: BedrockRuntimeClient,
  command: ConverseStreamCommand,
): Promise<ConverseStreamOutput[]> {
  const response = await runtime.send(command);
  const events: ConverseStreamOutput[] = [];
  for await (const event of response.stream ?? []) events.push(event);
  return events;
}

/** The tool-input fragments of a decoded stream, in order. */
export const fragmentsOf = (events: readonly ConverseStreamOutput[]) =>
  events.flatMap((event) => {
    const input = event.contentBlockDelta?.delta?.toolUse?.input;
    return input === undefined ? [] : [input];
  });
