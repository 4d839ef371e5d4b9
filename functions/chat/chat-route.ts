import { type ApiRequest, type HttpResponse, parseJsonBody, validateBody } from '../api/http.js';
import type { RouteContext } from '../api/route-context.js';
import { AttachmentRefusedError } from '../attachments/errors.js';
import type { ChatAttachments } from '../attachments/ports.js';
import { readingBound } from '../attachments/read-attachments.js';
import { type AttachmentRef, isImageType } from '../contract/attachments.js';
import type { ChatEvent } from '../contract/chat-events.js';
import type { ChatRequest } from '../contract/chat-request.js';
import { chatRequestSchema } from '../contract/chat-request.js';
import { modelCallDeadline, openModelCall } from '../model-call/open-model-call.js';
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
import { type AdmittedChat, type BegunChat, beginChat, streamChat } from './run-chat.js';

export interface ChatRouteDependencies {
  readonly store: ConversationStore;
  readonly retriever: Retriever;
  readonly model: ChatModel;
  readonly config: ChatConfig;
  readonly telemetry?: ChatTelemetry;
  /** Service-desk insights of each finished chat (ADR 0022); nothing when absent. */
  readonly insights?: ChatInsights;
  /**
   * Attachments (ADR 0030): where their bytes are and the vision step's output bound. Absent (a
   * core under test without them): a message naming attachments finds none (404).
   */
  readonly attachments?: ChatAttachments;
  /** Surges and known issues (ADR 0033); nothing when absent. */
  readonly surges?: SurgeCheck;
}

/**
 * The attachments a message sends, as its turn keeps them: the `attachmentIds` given, each the
 * caller's (404 `attachment_not_found` otherwise); or, for a regenerate or edit that names none,
 * those of the turn it replaces. Before anything is written or reserved.
 */
export async function resolveAttachments(
  owner: Owner,
  request: ChatRequest,
  dependencies: Pick<ChatRouteDependencies, 'store' | 'attachments'>,
): Promise<AttachmentRef[]> {
  if (request.attachmentIds === undefined) {
    if (request.supersedes === undefined || request.conversationId === undefined) return [];
    // A regenerate keeps the replaced question's files; the store checks the rest of it.
    const { turns } = await dependencies.store.loadConversation(owner, request.conversationId);
    const replaced = turns.find((turn) => turn.seq === request.supersedes && turn.role === 'user');
    return [...(replaced?.attachments ?? [])];
  }
  const store = dependencies.attachments?.store;
  const refs = await Promise.all(
    request.attachmentIds.map((id) => store?.describe(owner, id) ?? Promise.resolve(undefined)),
  );
  return refs.map((ref) => {
    if (ref === undefined) {
      throw new AttachmentRefusedError('attachment_not_found', 'Attachment not found');
    }
    return ref;
  });
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
 * will never call the model. The open known issues (ADR 0033) are read beside all of it: they
 * depend on the tenant, not on the inquiry. Once admitted, a brand-new conversation's message is
 * counted for surges at once (`surgeCount`, ADR 0035); a refused chat is counted nowhere.
 */
export async function admitChat(
  caller: { readonly owner: Owner; readonly desks: readonly string[] },
  request: ChatRequest,
  dependencies: Pick<
    ChatRouteDependencies,
    'store' | 'retriever' | 'config' | 'attachments' | 'surges'
  > &
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
  const attachments = await resolveAttachments(owner, request, dependencies);
  const images = attachments.filter((ref) => isImageType(ref.type));
  const brandNew = request.conversationId === undefined;
  // The reservations' writes leave first; for a follow-up they, then the commit, are what the
  // first byte waits for.
  const opening = openModelCall(
    owner,
    {
      bound: chatAdmissionBound(request.message ?? '', config, attachments),
      remainingTimeMs,
      deadline,
    },
    dependencies,
  );
  // The vision step is a model call of its own, bounded and reserved before the first byte too.
  const readingMaxTokens = dependencies.attachments?.readingMaxTokens ?? 0;
  const openingReading =
    images.length > 0
      ? openModelCall(
          owner,
          { bound: readingBound(images, readingMaxTokens), remainingTimeMs, deadline },
          dependencies,
        )
      : undefined;
  openingReading?.catch(() => undefined);
  const restrictedIssueIds = new Set<string>();
  // With images, the query waits for what the vision step reads from them.
  const earlySearch =
    brandNew && images.length === 0
      ? retrieveTickets(
          dependencies.retriever,
          request.message ?? '',
          config,
          desks,
          AbortSignal.any([deadline, refused.signal]),
          restrictedIssueIds,
        )
      : undefined;
  // Keep an early failure from surfacing as an unhandled rejection; it is awaited later.
  earlySearch?.catch(() => undefined);
  // What leads published is the tenant's, whatever the inquiry says: read beside the writes, so
  // the first token never waits for it (a refused chat just leaves it unused).
  const knownIssues = dependencies.surges?.readKnownIssues(owner);
  const reserved = Promise.all([opening, openingReading]);
  const begin = () =>
    beginChat(owner, request, dependencies, {
      atMs,
      desks,
      earlySearch,
      restrictedIssueIds,
      attachments,
    });
  const [opened, begun] = await Promise.allSettled(
    brandNew ? [reserved, begin()] : [reserved, reserved.then(begin)],
  );
  if (opened.status === 'rejected') {
    refused.abort();
    // Whichever reservation was granted is given back: this chat will never call the model.
    await Promise.all(
      [opening, openingReading].map((reservation) =>
        reservation?.then(
          (call) => call.settle(),
          () => undefined,
        ),
      ),
    );
    if (begun.status === 'fulfilled') await withdraw(owner, begun.value, dependencies);
    throw opened.reason;
  }
  const [call, readingCall] = opened.value;
  if (begun.status === 'rejected') {
    refused.abort();
    await call.settle();
    await readingCall?.settle();
    throw begun.reason;
  }
  const admitted = begun.value;
  // A brand-new conversation's first message, with no images, is its inquiry's whole text: it is
  // counted now, while the response starts, instead of once the stream gets to it (ADR 0035). A
  // duplicate that replays its answer counts nothing; one that takes over counts in the stream.
  const surgeCount =
    dependencies.surges && admitted.earlySearch && !admitted.duplicate
      ? dependencies.surges.countInquiry(
          owner,
          {
            conversationId: admitted.conversation.conversationId,
            inquiryId: admitted.turn.inquiryId,
            text: admitted.turn.text,
          },
          admitted.earlySearch,
        )
      : undefined;
  return {
    ...admitted,
    call,
    ...(readingCall ? { readingCall } : {}),
    ...(knownIssues ? { knownIssues } : {}),
    ...(surgeCount ? { surgeCount } : {}),
  };
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
