import {
  type BedrockRuntimeClient,
  type CachePointBlock,
  ConverseStreamCommand,
  type ConverseStreamCommandInput,
  type ConverseStreamCommandOutput,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { ChatModelError } from '../../chat/errors.js';
import type { ChatModel, ChatModelEvent, ChatModelRequest, StopReason } from '../../chat/ports.js';

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
  /**
   * A Bedrock Guardrail on every call (`GUARDRAIL_IDENTIFIER`/`GUARDRAIL_VERSION`; ADR 0013),
   * applied in async stream mode so advice still streams token by token.
   * @default undefined (no guardrail)
   */
  readonly guardrail?: { readonly identifier: string; readonly version: string };
}

const FINE_GRAINED_BETA = 'fine-grained-tool-streaming-2025-05-14';

/**
 * A Converse cache checkpoint: the prefix up to here is cached for 5 minutes (the default TTL,
 * refreshed by every read). `CachePointBlock` in the Bedrock Runtime API reference.
 */
const CACHE_POINT: CachePointBlock = Object.freeze({ type: 'default' });

/**
 * `ChatModel` on Bedrock ConverseStream with the answer tool forced. With a guardrail, the last
 * user message — the retrieved tickets, the archive and the inquiry, the text nobody at the
 * desk wrote or vetted — goes as a `guardContent` block: with one present, the guardrail
 * evaluates only guarded content, so the system prompt (our instructions, which a prompt-attack
 * filter could mistake for an attack) and earlier turns (evaluated when they were last) are not
 * scanned or billed again.
 */
export function createBedrockChatModel(options: BedrockChatModelOptions): ChatModel {
  const fineGrained = options.fineGrainedToolStreaming ?? options.modelId.includes('anthropic');
  const { guardrail } = options;
  return {
    async *stream(request: ChatModelRequest): AsyncGenerator<ChatModelEvent> {
      const checkpoints = request.cacheCheckpoints;
      const input: ConverseStreamCommandInput = {
        modelId: options.modelId,
        system: [
          { text: request.system },
          ...(checkpoints?.afterSystem ? [{ cachePoint: CACHE_POINT }] : []),
        ],
        messages: request.messages.map((message, index) => ({
          role: message.role,
          content: [
            // Images first, then the text that refers to them (Anthropic's guidance for vision).
            ...(message.images ?? []).map((image) => ({
              image: { format: image.format, source: { bytes: image.bytes } },
            })),
            guardrail && index === request.messages.length - 1
              ? { guardContent: { text: { text: message.text } } }
              : { text: message.text },
            ...(checkpoints?.afterMessage === index ? [{ cachePoint: CACHE_POINT }] : []),
          ],
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
            ...(checkpoints?.afterTool ? [{ cachePoint: CACHE_POINT }] : []),
          ],
          toolChoice: { tool: { name: request.tool.name } },
        },
        inferenceConfig: { maxTokens: request.maxTokens, temperature: 0 },
        ...(fineGrained
          ? { additionalModelRequestFields: { anthropic_beta: [FINE_GRAINED_BETA] } }
          : {}),
        ...(guardrail
          ? {
              guardrailConfig: {
                guardrailIdentifier: guardrail.identifier,
                guardrailVersion: guardrail.version,
                // Sync would hold every chunk until it is scanned; the answer is tool input,
                // which output policies do not evaluate anyway (ADR 0013).
                streamProcessingMode: 'async',
              },
            }
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
  const usage = event.metadata?.usage;
  if (usage) {
    // With prompt caching Bedrock counts cache reads and writes apart from `inputTokens`
    // (`totalTokens` = input + output + cache read + cache write); absent without caching.
    return {
      type: 'usage',
      inputTokens: usage.inputTokens ?? 0,
      outputTokens: usage.outputTokens ?? 0,
      ...(usage.cacheReadInputTokens !== undefined
        ? { cacheReadInputTokens: usage.cacheReadInputTokens }
        : {}),
      ...(usage.cacheWriteInputTokens !== undefined
        ? { cacheWriteInputTokens: usage.cacheWriteInputTokens }
        : {}),
    };
  }
  return undefined;
}

const THROTTLED = new Set([
  'ThrottlingException',
  'TooManyRequestsException',
  'ServiceQuotaExceededException',
]);
const UNAVAILABLE = new Set([
  'ServiceUnavailableException',
  'ModelNotReadyException',
  'InternalServerException',
  'ModelTimeoutException',
]);
const MID_STREAM = new Set(['ModelStreamErrorException']);

/**
 * Translates the Bedrock errors the core can act on; anything else (including an abort, which
 * the core recognises by its own signal) is rethrown unchanged.
 * `midStream`: the error came while iterating, after the SDK's retries no longer apply.
 */
export function mapBedrockError(error: unknown, midStream: boolean): unknown {
  const name = (error as { name?: string } | undefined)?.name ?? '';
  if (name === 'AbortError') return error;
  if (MID_STREAM.has(name) || (midStream && (THROTTLED.has(name) || UNAVAILABLE.has(name)))) {
    return new ChatModelError('model_stream_failed', true, { cause: error });
  }
  if (THROTTLED.has(name)) return new ChatModelError('model_throttled', true, { cause: error });
  if (UNAVAILABLE.has(name)) return new ChatModelError('model_unavailable', true, { cause: error });
  if (
    name === 'ValidationException' ||
    name === 'AccessDeniedException' ||
    name === 'ResourceNotFoundException'
  ) {
    return new ChatModelError('model_rejected', false, { cause: error });
  }
  return error;
}

/** Bedrock's stop reasons in the core's terms; values added later by AWS become `other`. */
export function mapBedrockStopReason(reason: string | undefined): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'tool_use':
    case 'max_tokens':
    case 'stop_sequence':
      return reason;
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'guardrail_intervened':
      return reason;
    default:
      return 'other';
  }
}
