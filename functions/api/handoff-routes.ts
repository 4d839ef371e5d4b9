import {
  type DailyBudget,
  requestBound,
  reserveWithinBudget,
  tokensToCharge,
} from '../chat/daily-budget.js';
import { InquiryNotFoundError } from '../chat/errors.js';
import { type Log, silentLog } from '../chat/log.js';
import type { ChatConfig, ChatModel, ConversationStore } from '../chat/ports.js';
import { handoffRequestSchema } from '../contract/handoff.js';
import {
  buildHandoffRequest,
  handoffTranscript,
  streamHandoffSummary,
} from '../handoff/handoff-summary.js';
import { sseResponse } from '../sse/sse-response.js';
import type { StreamPaddingOptions } from '../sse/stream-padding.js';
import { type ApiRequest, type HttpResponse, parseJsonBody, validateBody } from './http.js';

/** Output tokens of a summary: five short fields; one that needs more has lost its way. */
const HANDOFF_MAX_TOKENS = 2048;

export interface HandoffRouteDependencies {
  readonly store: ConversationStore;
  readonly model: ChatModel;
  readonly config: Pick<ChatConfig, 'dailyTokenBudget' | 'modelId' | 'remainingTimeReserveMs'>;
  readonly budget?: DailyBudget;
  readonly heartbeatMs: number;
  /** Padding of the stream, as the chat's (`STREAM_PADDING`). @default no padding */
  readonly padding?: StreamPaddingOptions;
  readonly now: () => Date;
  /** Where failures are reported (the function's Powertools Logger). @default silentLog */
  readonly log?: Log;
}

/**
 * `POST /api/conversations/{id}/inquiries/{inquiryId}/handoff` (ADR 0024): the streamed hand-off
 * summary of one inquiry of the caller's conversation, solved or not. Any staff member may ask
 * for one of their own inquiries; the daily budget is reserved before the first byte and
 * settled before the stream ends. Nothing is stored: the web app keeps the edited summary.
 */
export function createHandoffRoute(dependencies: HandoffRouteDependencies) {
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
    const reservation = await reserveWithinBudget(
      request.owner,
      dependencies.now(),
      requestBound(handoffRequest),
      dependencies,
    );
    const budgetMs = request.remainingTimeMs() - dependencies.config.remainingTimeReserveMs;
    const signal = AbortSignal.timeout(Math.max(1000, budgetMs));
    return sseResponse(
      {
        heartbeatMs: dependencies.heartbeatMs,
        padding: dependencies.padding,
        failureEvent: {
          code: 'internal',
          message: 'The summary failed. Please try again.',
          retryable: true,
        },
        logFailure: (error) =>
          (dependencies.log ?? silentLog).error('hand-off summary failed', { error }),
      },
      async (sse) => {
        let tokensCharged = 0;
        try {
          sse.send({
            event: 'meta',
            data: {
              conversationId,
              inquiryId,
              version: conversation.version,
              modelId: dependencies.config.modelId,
            },
          });
          sse.send({ event: 'progress', data: { step: 'generating' } });
          const outcome = await streamHandoffSummary({
            model: dependencies.model,
            request: handoffRequest,
            language,
            outcome: transcript.outcome,
            signal,
            send: (event) => sse.send(event),
          });
          tokensCharged = tokensToCharge({
            request: handoffRequest,
            usage: outcome.usage,
            ...(outcome.failure ? { failure: outcome.failure } : {}),
            ...(outcome.summary ? { output: outcome.summary } : {}),
          });
        } finally {
          // Settled before the body closes: the invocation ends with it.
          await reservation?.settle(tokensCharged);
        }
      },
    );
  };
}
