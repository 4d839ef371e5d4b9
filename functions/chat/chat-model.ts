export interface ChatMessage {
  readonly role: 'user' | 'assistant';
  readonly text: string;
}

export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the tool input. */
  readonly inputSchema: Record<string, unknown>;
}

export interface ChatModelRequest {
  readonly system: string;
  readonly messages: readonly ChatMessage[];
  /** The model is forced to call this tool; its input is the answer. */
  readonly tool: ToolDefinition;
  readonly maxTokens: number;
  readonly signal?: AbortSignal;
}

export type StopReason = 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'other';

export type ChatModelEvent =
  | { readonly type: 'tool_input'; readonly fragment: string }
  | { readonly type: 'stop'; readonly reason: StopReason }
  | { readonly type: 'usage'; readonly inputTokens: number; readonly outputTokens: number };

/** A streaming model behind a forced tool; the Bedrock ConverseStream adapter implements it. */
export interface ChatModel {
  stream(request: ChatModelRequest): AsyncIterable<ChatModelEvent>;
}

/** A model failure the core understands; anything else is an internal error. */
export class ChatModelError extends Error {
  constructor(
    readonly code: 'throttled' | 'unavailable' | 'stream_failed' | 'rejected',
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(`Model call failed: ${code}`, options);
    this.name = 'ChatModelError';
  }
}
