import type { ApiRequest, HttpResponse } from '../api/http.js';
import type { RouteContext } from '../api/route-context.js';
import type { StreamEvent } from '../contract/chat-events.js';
import { sseResponse } from '../sse/sse-response.js';
import { type ModelCall, openModelCall } from './open-model-call.js';

/**
 * The response of a route that streams one model call over SSE from one inquiry — the knowledge
 * draft (ADR 0011), the mail draft's refinement (ADR 0023), the hand-off summary (ADR 0024). One
 * lifecycle for the three: the call opened before the first byte (its budget reserved, a 429
 * over it, ADR 0012; its deadline), `meta` and `progress: generating`, the route's own events,
 * and the reservation settled to what the call cost before the body closes (the invocation ends
 * with it), also when the call throws.
 */

/** What the route's own part of the stream gets. */
export interface ModelStream<E extends StreamEvent> {
  /** Aborts at the invocation's deadline, less the reserve for closing the stream. */
  readonly signal: AbortSignal;
  send(event: E): void;
  /** The call: `requestBuilt` once the prompt is complete, `ended` with what it cost. */
  readonly call: Pick<ModelCall, 'requestBuilt' | 'ended'>;
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
 * Opens the call (throws `DailyBudgetExceededError` before any byte), then streams.
 * @example
 * return modelStreamResponse(request, context, { bound, meta, failureMessage, logMessage },
 *   async ({ signal, send, call }) => { const outcome = await streamIt(signal, send); call.ended({ request, ...outcome }); });
 */
export async function modelStreamResponse<E extends StreamEvent>(
  request: ApiRequest,
  context: RouteContext,
  call: ModelStreamCall,
  produce: (stream: ModelStream<E>) => Promise<void>,
): Promise<HttpResponse> {
  const opened = await openModelCall(
    request.owner,
    { bound: call.bound, remainingTimeMs: request.remainingTimeMs },
    context,
  );
  return sseResponse<StreamEvent>(
    {
      heartbeatMs: context.stream.heartbeatMs,
      padding: context.stream.padding,
      failureEvent: { code: 'internal', message: call.failureMessage, retryable: true },
      logFailure: (error) => context.log.error(call.logMessage, { error }),
    },
    async (sse) => {
      try {
        sse.send({
          event: 'meta',
          data: { ...call.meta, modelId: context.config.modelId },
        });
        sse.send({ event: 'progress', data: { step: 'generating' } });
        await produce({ signal: opened.deadline, send: (event) => sse.send(event), call: opened });
      } finally {
        await opened.settle();
      }
    },
  );
}
