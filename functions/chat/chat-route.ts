import { type ApiRequest, type HttpResponse, parseJsonBody, validateBody } from '../api/http.js';
import type { ChatRequest } from '../contract/chat-request.js';
import { chatRequestSchema } from '../contract/chat-request.js';
import type { DailyBudget } from '../model-call/daily-budget.js';
import { openModelCall } from '../model-call/open-model-call.js';
import { sseResponse } from '../sse/sse-response.js';
import type { StreamPaddingOptions } from '../sse/stream-padding.js';
import { type Log, silentLog } from './log.js';
import { chatAdmissionBound } from './model-request.js';
import type {
  ChatConfig,
  ChatInsights,
  ChatModel,
  ChatTelemetry,
  ConversationStore,
  Owner,
  Retriever,
} from './ports.js';
import { type AdmittedChat, beginChat, streamChat } from './run-chat.js';

export interface ChatRouteDependencies {
  readonly store: ConversationStore;
  readonly retriever: Retriever;
  readonly model: ChatModel;
  readonly config: ChatConfig;
  readonly heartbeatMs: number;
  /** 0 coalesces `token` events without delay (the default); otherwise the batching delay in ms. */
  readonly tokenBatchMs: number;
  /** @default no padding */
  readonly padding?: StreamPaddingOptions;
  readonly now: () => Date;
  readonly telemetry?: ChatTelemetry;
  readonly budget?: DailyBudget;
  /** Where failures are reported (the function's Powertools Logger). @default silentLog */
  readonly log?: Log;
  /** Service-desk insights of each finished chat (ADR 0022); nothing when absent. */
  readonly insights?: ChatInsights;
}

/**
 * Admits a chat: its model call is opened first — the admission bound reserved before anything
 * is written, so over the budget the chat is refused with 429 (ADR 0012), and the deadline set —
 * then the chat begun (`beginChat`). A chat refused while beginning gives its reservation back:
 * it will never call the model.
 */
export async function admitChat(
  owner: Owner,
  request: ChatRequest,
  dependencies: Pick<
    ChatRouteDependencies,
    'store' | 'retriever' | 'config' | 'now' | 'budget' | 'log'
  > & {
    readonly remainingTimeMs: () => number;
  },
): Promise<AdmittedChat> {
  const call = await openModelCall(
    owner,
    {
      bound: chatAdmissionBound(request.message, dependencies.config),
      remainingTimeMs: dependencies.remainingTimeMs,
    },
    dependencies,
  );
  try {
    const begun = await beginChat(owner, request, { ...dependencies, deadline: call.deadline });
    return { ...begun, call };
  } catch (error) {
    await call.settle();
    throw error;
  }
}

/**
 * `POST /api/chat`. Validation, admission and the user turn's write happen before the first
 * byte (so they can still fail with a status); then the SSE body streams while the pipeline
 * runs. The invocation lasts until the body closes, which `streamChat` guarantees by never
 * throwing.
 */
export function createChatRoute(dependencies: ChatRouteDependencies) {
  return async (request: ApiRequest): Promise<HttpResponse> => {
    const chatRequest = validateBody(chatRequestSchema, parseJsonBody(request));
    const admitted = await admitChat(request.owner, chatRequest, {
      ...dependencies,
      remainingTimeMs: request.remainingTimeMs,
    });
    const { telemetry } = dependencies;
    return sseResponse(
      {
        heartbeatMs: dependencies.heartbeatMs,
        tokenBatch:
          dependencies.tokenBatchMs > 0 ? { maxDelayMs: dependencies.tokenBatchMs } : undefined,
        padding: dependencies.padding,
        // streamChat never throws by design; a bug must still end the stream, not the container.
        failureEvent: {
          code: 'internal',
          message: 'Something went wrong while answering. Please try again.',
          retryable: true,
        },
        logFailure: (error) =>
          (dependencies.log ?? silentLog).error('chat stream failed', { error }),
      },
      (sse) =>
        streamChat(admitted, (event) => sse.send(event), {
          ...dependencies,
          // The stream is the route's: it adds how many heartbeats the chat needed.
          telemetry: telemetry && {
            chatFinished: (report) =>
              telemetry.chatFinished({ ...report, heartbeatsSent: sse.heartbeatsSent }),
          },
          remainingTimeMs: request.remainingTimeMs,
        }),
    );
  };
}
