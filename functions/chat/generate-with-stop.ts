import type { ChatEvent } from '../stream/chat-events.js';
import type { BegunChat } from './begin-chat.js';
import type { ChatConfig } from './chat-config.js';
import type { ChatModel, ChatModelRequest } from './chat-model.js';
import type { ConversationStore } from './conversation-store.js';
import { type GenerationOutcome, generateAnswer } from './generate-answer.js';
import { type StopReason, startStopPoller } from './stop-poller.js';

export interface GenerateWithStopDependencies {
  readonly store: ConversationStore;
  readonly model: ChatModel;
  readonly config: ChatConfig;
  readonly remainingTimeMs: () => number;
}

/**
 * Generation that ends early when staff press stop (the flag is polled) or when the function's
 * time is nearly up. A stop keeps what streamed as `stopped`; running out of time is a
 * retryable failure, so the page offers to try again instead of looking deliberately stopped.
 */
export async function generateWithStop(
  begun: BegunChat,
  dependencies: GenerateWithStopDependencies,
  request: Omit<ChatModelRequest, 'signal'>,
  allowedIssueIds: ReadonlySet<string>,
  send: (event: ChatEvent) => void,
): Promise<GenerationOutcome> {
  const controller = new AbortController();
  let reason: StopReason | undefined;
  const poller = startStopPoller({
    isStopRequested: () =>
      dependencies.store.isStopRequested(
        begun.owner,
        begun.conversation.conversationId,
        begun.startedAt,
      ),
    remainingTimeMs: dependencies.remainingTimeMs,
    reserveMs: dependencies.config.remainingTimeReserveMs,
    intervalMs: dependencies.config.stopPollMs,
    onStop: (stopReason) => {
      reason = stopReason;
      controller.abort();
    },
  });
  try {
    const outcome = await generateAnswer({
      model: dependencies.model,
      request,
      allowedIssueIds,
      send,
      signal: controller.signal,
    });
    if (outcome.status !== 'stopped' || reason !== 'timeout') return outcome;
    return {
      status: 'failed',
      answer: outcome.answer,
      failure: {
        code: 'timeout',
        message: 'The answer took too long and was cut off. Please try again.',
        retryable: true,
      },
    };
  } finally {
    poller.stop();
  }
}
