import {
  type BudgetReservation,
  type DailyBudget,
  reserveWithinBudget,
} from '../chat/daily-budget.js';
import type { Log } from '../chat/log.js';
import type { ChatConfig } from '../chat/ports.js';
import type { ChatEvent } from '../contract/chat-events.js';
import { sseResponse } from '../sse/sse-response.js';
import type { StreamPaddingOptions } from '../sse/stream-padding.js';
import type { ApiRequest, HttpResponse } from './http.js';

/**
 * The response of a route that streams one model call over SSE from one inquiry — the knowledge
 * draft (ADR 0011), the mail draft's refinement (ADR 0023), the hand-off summary (ADR 0024). One
 * lifecycle for the three: the daily budget reserved before the first byte (a 429 over it, ADR
 * 0012), a deadline from the invocation's remaining time, `meta` and `progress: generating`, the
 * route's own events, and the reservation settled to what the call cost before the body closes
 * (the invocation ends with it), also when the call throws.
 */

/** What these routes take from their dependencies. */
export interface ModelStreamDependencies {
  readonly config: Pick<ChatConfig, 'dailyTokenBudget' | 'modelId' | 'remainingTimeReserveMs'>;
  /** The daily token budget; undefined (or a limit of 0): no budget. */
  readonly budget?: DailyBudget;
  readonly heartbeatMs: number;
  /** Padding of the stream, as the chat's (`STREAM_PADDING`). @default no padding */
  readonly padding?: StreamPaddingOptions;
  readonly now: () => Date;
  /** Where failures are reported (the function's Powertools Logger). */
  readonly log: Log;
}

/** What the route's own part of the stream gets. */
export interface ModelStream {
  /** Aborts at the invocation's deadline, less the reserve for closing the stream. */
  readonly signal: AbortSignal;
  send(event: ChatEvent): void;
  /** The tokens the call costs, as far as known: what the reservation settles to. */
  charge(tokens: number): void;
  /** The reservation, to resize once the prompt is complete (undefined: no budget). */
  readonly reservation?: BudgetReservation;
}

export interface ModelStreamCall {
  /** The most the call can cost (`requestBound` of its request, or an allowance). */
  readonly bound: number;
  /** The `meta` event's ids (the model id is the deployment's). */
  readonly meta: {
    readonly conversationId: string;
    readonly inquiryId: string;
    readonly version: number;
  };
  /** The `error` event when the route's part throws, e.g. `The summary failed.` */
  readonly failureMessage: string;
  /** The log line of such a failure, e.g. `hand-off summary failed`. */
  readonly logMessage: string;
}

/**
 * Reserves `call.bound` (throws `DailyBudgetExceededError` before any byte), then streams.
 * @example
 * return modelStreamResponse(request, dependencies, { bound, meta, failureMessage, logMessage },
 *   async ({ signal, send, charge }) => { const outcome = await streamIt(signal, send); charge(cost(outcome)); });
 */
export async function modelStreamResponse(
  request: ApiRequest,
  dependencies: ModelStreamDependencies,
  call: ModelStreamCall,
  produce: (stream: ModelStream) => Promise<void>,
): Promise<HttpResponse> {
  const reservation = await reserveWithinBudget(
    request.owner,
    dependencies.now(),
    call.bound,
    dependencies,
  );
  const budgetMs = request.remainingTimeMs() - dependencies.config.remainingTimeReserveMs;
  const signal = AbortSignal.timeout(Math.max(1000, budgetMs));
  return sseResponse(
    {
      heartbeatMs: dependencies.heartbeatMs,
      padding: dependencies.padding,
      failureEvent: { code: 'internal', message: call.failureMessage, retryable: true },
      logFailure: (error) => dependencies.log.error(call.logMessage, { error }),
    },
    async (sse) => {
      let charged = 0;
      try {
        sse.send({
          event: 'meta',
          data: { ...call.meta, modelId: dependencies.config.modelId },
        });
        sse.send({ event: 'progress', data: { step: 'generating' } });
        await produce({
          signal,
          send: (event) => sse.send(event),
          charge: (tokens) => {
            charged = tokens;
          },
          ...(reservation ? { reservation } : {}),
        });
      } finally {
        await reservation?.settle(charged);
      }
    },
  );
}
