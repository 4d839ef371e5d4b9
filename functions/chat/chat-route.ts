import { type ApiRequest, type HttpResponse, parseJsonBody, validateBody } from '../api/http.js';
import type { RouteContext } from '../api/route-context.js';
import type { ChatEvent } from '../contract/chat-events.js';
import type { ChatRequest } from '../contract/chat-request.js';
import { chatRequestSchema } from '../contract/chat-request.js';
import { type ModelCall, modelCallDeadline, openModelCall } from '../model-call/open-model-call.js';
import { sseResponse } from '../sse/sse-response.js';
import type { SurgeCheck } from '../surges/surge-check.js';
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
import { retrieveTickets } from './retrieval.js';
import { type AdmittedChat, beginChat, streamChat } from './run-chat.js';

export interface ChatRouteDependencies {
  readonly store: ConversationStore;
  readonly retriever: Retriever;
  readonly model: ChatModel;
  readonly config: ChatConfig;
  readonly telemetry?: ChatTelemetry;
  /** Service-desk insights of each finished chat (ADR 0022); nothing when absent. */
  readonly insights?: ChatInsights;
  /** Surges and known issues (ADR 0033); nothing when absent. */
  readonly surges?: SurgeCheck;
}

/**
 * Admits a chat: its model call is opened first — the admission bound reserved before anything
 * is written, so over the budget the chat is refused with 429 (ADR 0012), and the deadline set —
 * then the chat begun (`beginChat`). A brand-new conversation's retrieval needs neither (its
 * inquiry can only be this message, never history), so it runs alongside both and is aborted
 * when the chat is refused. A chat refused while beginning gives its reservation back: it will
 * never call the model.
 */
export async function admitChat(
  owner: Owner,
  request: ChatRequest,
  dependencies: Pick<ChatRouteDependencies, 'store' | 'retriever' | 'config'> &
    Pick<RouteContext, 'now' | 'budget'> & {
      readonly remainingTimeMs: () => number;
      /** Where a failed budget write is reported. */
      readonly log: RouteContext['log'];
    },
): Promise<AdmittedChat> {
  const atMs = performance.now();
  const { config, remainingTimeMs } = dependencies;
  const deadline = modelCallDeadline(remainingTimeMs, config);
  const refused = new AbortController();
  // The reservation's write leaves first: it, then the commit, is what the first byte waits for.
  const opening = openModelCall(
    owner,
    { bound: chatAdmissionBound(request.message, config), remainingTimeMs, deadline },
    dependencies,
  );
  const restrictedIssueIds = new Set<string>();
  const earlySearch = request.conversationId
    ? undefined
    : retrieveTickets(
        dependencies.retriever,
        request.message,
        config,
        AbortSignal.any([deadline, refused.signal]),
        restrictedIssueIds,
      );
  // Keep an early failure from surfacing as an unhandled rejection; it is awaited later.
  earlySearch?.catch(() => undefined);
  let call: ModelCall;
  try {
    call = await opening;
  } catch (error) {
    refused.abort();
    throw error;
  }
  try {
    const begun = await beginChat(owner, request, dependencies, {
      atMs,
      earlySearch,
      restrictedIssueIds,
    });
    return { ...begun, call };
  } catch (error) {
    refused.abort();
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
export function createChatRoute(context: RouteContext, dependencies: ChatRouteDependencies) {
  const { stream, log, now } = context;
  return async (request: ApiRequest): Promise<HttpResponse> => {
    const chatRequest = validateBody(chatRequestSchema, parseJsonBody(request));
    const admitted = await admitChat(request.owner, chatRequest, {
      ...dependencies,
      ...(context.budget ? { budget: context.budget } : {}),
      now,
      log,
      remainingTimeMs: request.remainingTimeMs,
    });
    const { telemetry } = dependencies;
    return sseResponse<ChatEvent>(
      {
        heartbeatMs: stream.heartbeatMs,
        padding: stream.padding,
        // streamChat never throws by design; a bug must still end the stream, not the container.
        failureEvent: {
          code: 'internal',
          message: 'Something went wrong while answering. Please try again.',
          retryable: true,
        },
        logFailure: (error) => log.error('chat stream failed', { error }),
      },
      (sse) =>
        streamChat(admitted, (event) => sse.send(event), {
          ...dependencies,
          now,
          log,
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
