import type { DailyBudget } from '../chat/daily-budget.js';
import type { Log } from '../chat/log.js';
import type {
  ChatConfig,
  ChatInsights,
  ChatModel,
  ChatTelemetry,
  ConversationStore,
  Retriever,
} from '../chat/ports.js';
import { beginChat, streamChat } from '../chat/run-chat.js';
import { chatRequestSchema } from '../contract/chat-request.js';
import { sseResponse } from '../sse/sse-response.js';
import type { StreamPaddingOptions } from '../sse/stream-padding.js';
import { type ApiRequest, type HttpResponse, parseJsonBody, validateBody } from './http.js';

export interface ChatRouteDependencies {
  readonly store: ConversationStore;
  readonly retriever: Retriever;
  readonly model: ChatModel;
  readonly config: ChatConfig;
  readonly heartbeatMs: number;
  /** @default no padding */
  readonly padding?: StreamPaddingOptions;
  readonly now: () => Date;
  readonly telemetry?: ChatTelemetry;
  readonly budget?: DailyBudget;
  /** Where failures are reported (the function's Powertools Logger). */
  readonly log: Log;
  /** Service-desk insights of each finished chat (ADR 0022); nothing when absent. */
  readonly insights?: ChatInsights;
}

/**
 * `POST /api/chat`. Validation and the user turn's write happen before the first byte (so they
 * can still fail with a status); then the SSE body streams while the pipeline runs. The
 * invocation lasts until the body closes, which `streamChat` guarantees by never throwing.
 */
export function createChatRoute(dependencies: ChatRouteDependencies) {
  return async (request: ApiRequest): Promise<HttpResponse> => {
    const chatRequest = validateBody(chatRequestSchema, parseJsonBody(request));
    // Retrieval must not outlive the function: leave the reserve for storing the outcome.
    const budgetMs = request.remainingTimeMs() - dependencies.config.remainingTimeReserveMs;
    const deadline = AbortSignal.timeout(Math.max(1000, budgetMs));
    const begun = await beginChat(request.owner, chatRequest, {
      ...dependencies,
      deadline,
      remainingTimeMs: request.remainingTimeMs,
    });
    const { telemetry } = dependencies;
    return sseResponse(
      {
        heartbeatMs: dependencies.heartbeatMs,
        padding: dependencies.padding,
        // streamChat never throws by design; a bug must still end the stream, not the container.
        failureEvent: {
          code: 'internal',
          message: 'Something went wrong while answering. Please try again.',
          retryable: true,
        },
        logFailure: (error) => dependencies.log.error('chat stream failed', { error }),
      },
      (sse) =>
        streamChat(begun, (event) => sse.send(event), {
          ...dependencies,
          // The stream is the route's: it adds how many heartbeats the chat needed.
          telemetry: telemetry && {
            chatFinished: (report) =>
              telemetry.chatFinished({ ...report, heartbeatsSent: sse.heartbeatsSent }),
          },
          remainingTimeMs: request.remainingTimeMs,
          deadline,
        }),
    );
  };
}
