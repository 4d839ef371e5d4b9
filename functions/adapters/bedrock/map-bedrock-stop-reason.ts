import type { StopReason } from '../../chat/chat-model.js';

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
    default:
      return 'other';
  }
}
