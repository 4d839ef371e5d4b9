/** Tunables of the chat pipeline; the handler fills them from the environment. */
export interface ChatConfig {
  /** Chunks asked from the Knowledge Base per inquiry. @default 8 */
  readonly numberOfResults: number;
  readonly maxTokens: number;
  /** Characters the archive section may use. @default 3000 */
  readonly archiveBudget: number;
  /** How often the stop flag is polled during generation. @default 1000 */
  readonly stopPollMs: number;
  /** Stop generating when less than this much of the function's time remains. @default 20_000 */
  readonly remainingTimeReserveMs: number;
  /** The configured model is the local offline responder (shown in the UI). */
  readonly offline: boolean;
}

export const defaultChatConfig: ChatConfig = {
  numberOfResults: 8,
  maxTokens: 4096,
  archiveBudget: 3000,
  stopPollMs: 1000,
  remainingTimeReserveMs: 20_000,
  offline: false,
};
