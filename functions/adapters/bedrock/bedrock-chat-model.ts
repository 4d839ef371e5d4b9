import {
  type BedrockRuntimeClient,
  ConverseStreamCommand,
  type ConverseStreamCommandInput,
  type ConverseStreamCommandOutput,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import type { ChatModel, ChatModelEvent, ChatModelRequest } from '../../chat/chat-model.js';
import { mapBedrockError } from './map-bedrock-error.js';
import { mapBedrockStopReason } from './map-bedrock-stop-reason.js';

export interface BedrockChatModelOptions {
  readonly client: BedrockRuntimeClient;
  /** A model id, an inference-profile id or its ARN. */
  readonly modelId: string;
  /**
   * Ask Anthropic models for fine-grained tool streaming, so advice arrives as it is written
   * instead of once per whole value. The JSON is then unvalidated; the parser tolerates that.
   * @default true for Anthropic model ids
   */
  readonly fineGrainedToolStreaming?: boolean;
}

const FINE_GRAINED_BETA = 'fine-grained-tool-streaming-2025-05-14';

/** `ChatModel` on Bedrock ConverseStream with the answer tool forced. */
export function createBedrockChatModel(options: BedrockChatModelOptions): ChatModel {
  const fineGrained = options.fineGrainedToolStreaming ?? options.modelId.includes('anthropic');
  return {
    async *stream(request: ChatModelRequest): AsyncGenerator<ChatModelEvent> {
      const input: ConverseStreamCommandInput = {
        modelId: options.modelId,
        system: [{ text: request.system }],
        messages: request.messages.map((message) => ({
          role: message.role,
          content: [{ text: message.text }],
        })),
        toolConfig: {
          tools: [
            {
              toolSpec: {
                name: request.tool.name,
                description: request.tool.description,
                inputSchema: { json: request.tool.inputSchema as never },
              },
            },
          ],
          toolChoice: { tool: { name: request.tool.name } },
        },
        inferenceConfig: { maxTokens: request.maxTokens, temperature: 0 },
        ...(fineGrained
          ? { additionalModelRequestFields: { anthropic_beta: [FINE_GRAINED_BETA] } }
          : {}),
      };
      let response: ConverseStreamCommandOutput;
      try {
        response = await options.client.send(new ConverseStreamCommand(input), {
          abortSignal: request.signal,
        });
      } catch (error) {
        throw mapBedrockError(error, false);
      }
      try {
        for await (const event of response.stream ?? []) {
          const mapped = toChatModelEvent(event);
          if (mapped) yield mapped;
        }
      } catch (error) {
        throw mapBedrockError(error, true);
      }
    },
  };
}

function toChatModelEvent(event: ConverseStreamOutput): ChatModelEvent | undefined {
  const fragment = event.contentBlockDelta?.delta?.toolUse?.input;
  if (fragment !== undefined) return { type: 'tool_input', fragment };
  if (event.messageStop)
    return { type: 'stop', reason: mapBedrockStopReason(event.messageStop.stopReason) };
  if (event.metadata?.usage) {
    return {
      type: 'usage',
      inputTokens: event.metadata.usage.inputTokens ?? 0,
      outputTokens: event.metadata.usage.outputTokens ?? 0,
    };
  }
  return undefined;
}
