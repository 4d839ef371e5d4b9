import { type ApiRequest, type HttpResponse, parseJsonBody, validateBody } from '../api/http.js';
import type { RouteContext } from '../api/route-context.js';
import type { ChatEvent } from '../contract/chat-events.js';
import type { ChatRequest } from '../contract/chat-request.js';
import { chatRequestSchema } from '../contract/chat-request.js';
import { modelCallDeadline, openModelCall } from '../model-call/open-model-call.js';
import { sseResponse } from '../sse/sse-response.js';
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
import { type AdmittedChat, type BegunChat, beginChat, streamChat } from './run-chat.js';

export interface ChatRouteDependencies {
  readonly store: ConversationStore;
  readonly retriever: Retriever;
  readonly model: ChatModel;
  readonly config: ChatConfig;
  readonly telemetry?: ChatTelemetry;
  /** Service-desk insights of each finished chat (ADR 0022); nothing when absent. */
  readonly insights?: ChatInsights;
}

/**
 * Admits a chat: its model call is opened — the admission bound reserved, so over the budget the
 * chat is refused with 429 (ADR 0012), and the deadline set — and the chat begun (`beginChat`:
 * the user turn committed). A brand-new conversation's retrieval needs neither (its inquiry can
 * only be this message, never history), so it runs alongside both and is aborted when the chat is
 * refused.
 *
 * The reservation and the commit run side by side for a brand-new conversation (ADR 0034): its
 * id is known to no one until `meta`, so a chat refused after its commit landed can withdraw the
 * whole conversation without anyone having been shown it. A follow-up's commit waits for the
 * reservation: it changes a conversation others may hold, and undoing it would be a second
 * version of that conversation. A chat refused while beginning gives its reservation back: it
 * will never call the model.
 */
export async function admitChat(
  caller: { readonly owner: Owner; readonly desks: readonly string[] },
  request: ChatRequest,
  dependencies: Pick<ChatRouteDependencies, 'store' | 'retriever' | 'config'> &
    Pick<RouteContext, 'now' | 'budget'> & {
      readonly remainingTimeMs: () => number;
      /** Where a failed budget write is reported. */
      readonly log: RouteContext['log'];
    },
): Promise<AdmittedChat> {
  const atMs = performance.now();
  const { owner, desks } = caller;
  const { config, remainingTimeMs } = dependencies;
  const deadline = modelCallDeadline(remainingTimeMs, config);
  const refused = new AbortController();
  const brandNew = request.conversationId === undefined;
  // The reservation's write leaves first; for a follow-up it, then the commit, is what the first
  // byte waits for.
  const opening = openModelCall(
    owner,
    { bound: chatAdmissionBound(request.message, config), remainingTimeMs, deadline },
    dependencies,
  );
  const restrictedIssueIds = new Set<string>();
  const earlySearch = brandNew
    ? retrieveTickets(
        dependencies.retriever,
        request.message,
        config,
        desks,
        AbortSignal.any([deadline, refused.signal]),
        restrictedIssueIds,
      )
    : undefined;
  // Keep an early failure from surfacing as an unhandled rejection; it is awaited later.
  earlySearch?.catch(() => undefined);
  const begin = () =>
    beginChat(owner, request, dependencies, { atMs, desks, earlySearch, restrictedIssueIds });
  const [opened, begun] = await Promise.allSettled(
    brandNew ? [opening, begin()] : [opening, opening.then(begin)],
  );
  if (opened.status === 'rejected') {
    refused.abort();
    if (begun.status === 'fulfilled') await withdraw(owner, begun.value, dependencies);
    throw opened.reason;
  }
  if (begun.status === 'rejected') {
    refused.abort();
    await opened.value.settle();
    throw begun.reason;
  }
  return { ...begun.value, call: opened.value };
}

/**
 * Takes back what a refused chat's commit wrote: the brand-new conversation it created, deleted
 * before its id ever left the function. A duplicate wrote nothing (its earlier copy stands).
 */
async function withdraw(
  owner: Owner,
  begun: BegunChat,
  dependencies: { readonly store: ConversationStore; readonly log: RouteContext['log'] },
): Promise<void> {
  if (begun.duplicate) return;
  await dependencies.store
    .deleteConversation(owner, begun.conversation.conversationId)
    .catch((error: unknown) =>
      dependencies.log.error('could not withdraw the conversation of a refused chat', { error }),
    );
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
    const admitted = await admitChat(request, chatRequest, {
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
