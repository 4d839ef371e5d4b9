import { type ApiRequest, type HttpResponse, parseJsonBody, validateBody } from '../api/http.js';
import type { RouteContext } from '../api/route-context.js';
import { InquiryNotFoundError } from '../chat/errors.js';
import type { ChatModel, ConversationStore } from '../chat/ports.js';
import type { HandoffStreamEvent } from '../contract/chat-events.js';
import { handoffRequestSchema } from '../contract/handoff.js';
import { requestBound } from '../model-call/daily-budget.js';
import { modelStreamResponse } from '../model-call/model-stream-response.js';
import { buildHandoffRequest, handoffTranscript, streamHandoffSummary } from './handoff-summary.js';

/** Output tokens of a summary: five short fields; one that needs more has lost its way. */
const HANDOFF_MAX_TOKENS = 2048;

export interface HandoffRouteDependencies {
  readonly store: ConversationStore;
  readonly model: ChatModel;
  readonly config: { readonly allowedLinkDomains: readonly string[] };
}

/**
 * `POST /api/conversations/{id}/inquiries/{inquiryId}/handoff` (ADR 0024): the streamed hand-off
 * summary of one inquiry of the caller's conversation, solved or not. Any staff member may ask
 * for one of their own inquiries; the daily budget is reserved before the first byte and
 * settled before the stream ends. Nothing is stored: the web app keeps the edited summary.
 */
export function createHandoffRoute(context: RouteContext, dependencies: HandoffRouteDependencies) {
  const { store } = dependencies;
  return async function handoff(
    request: ApiRequest,
    conversationId: string,
    inquiryId: string,
  ): Promise<HttpResponse> {
    // A JSON object, as every POST sends (the web app's is `{}` or `{ language }`).
    const body = validateBody(handoffRequestSchema, parseJsonBody(request));
    const { conversation, turns } = await store.loadConversation(request.owner, conversationId);
    if (!turns.some((turn) => turn.inquiryId === inquiryId)) throw new InquiryNotFoundError();
    const transcript = handoffTranscript(turns, inquiryId);
    const language = body.language ?? transcript.language;
    const handoffRequest = buildHandoffRequest(transcript, language, HANDOFF_MAX_TOKENS);
    // The prompt is known before the first byte, so the reservation is exact (ADR 0012).
    return modelStreamResponse<HandoffStreamEvent>(
      request,
      context,
      {
        bound: requestBound(handoffRequest),
        meta: { conversationId, inquiryId, version: conversation.version },
        failureMessage: 'The summary failed. Please try again.',
        logMessage: 'hand-off summary failed',
      },
      async ({ signal, send, call }) => {
        const outcome = await streamHandoffSummary({
          model: dependencies.model,
          request: handoffRequest,
          language,
          outcome: transcript.outcome,
          allowedLinkDomains: dependencies.config.allowedLinkDomains,
          signal,
          send,
        });
        call.ended({
          request: handoffRequest,
          usage: outcome.usage,
          ...(outcome.failure ? { failure: outcome.failure } : {}),
          ...(outcome.summary ? { output: outcome.summary } : {}),
        });
      },
    );
  };
}
