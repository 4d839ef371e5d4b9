import type { Logger } from '@aws-lambda-powertools/logger';
import type { Tracer } from '@aws-lambda-powertools/tracer';
import type { ChatModel, ChatModelEvent, ChatModelRequest } from '../chat/ports.js';
import { METRICS_SERVICE } from './metric-catalog.js';

/**
 * AWS X-Ray tracing of the API function through the Powertools Tracer, on only when the
 * `POWERTOOLS_TRACE_ENABLED` setting says so (the stack's `tracing` setting; off locally).
 *
 * What a trace of one request holds, under Lambda's own segment:
 * - `## <METHOD> <route>`: the request, from the handler's start until the response's last byte
 *   (for a chat: until the SSE stream closes), annotated with route, method, status, the owner
 *   as a hash and, for a chat, its outcome — never message text or a user id;
 * - `DynamoDB`, `BedrockAgentRuntime` (Retrieve) and `BedrockRuntime` (ConverseStream): one
 *   subsegment per AWS SDK call (`captureAWSv3Client`). The SDK's subsegment of a streaming
 *   call ends when the response *starts* (its middleware returns with the event stream);
 * - `## ConverseStream stream`: the model's whole stream, from the request until its last event
 *   (or the error or stop that ended it), with the stop reason.
 *
 * The tracer and the X-Ray SDK are imported only when tracing is on: the SDK's `cls-hooked`
 * context installs async hooks on import, which would tax every promise of a function that
 * does not trace. A bundle built for a stack without tracing leaves them out altogether
 * ({@link TRACER_OMITTED_DEFINE}), so the cold start does not even parse them.
 */
export interface Tracing {
  readonly enabled: boolean;
  /** Records the client's calls as subsegments (before its first call); off: nothing. */
  captureClient<Client extends object>(client: Client): Client;
  /**
   * Runs one request in its own subsegment, which stays open until a streamed body ends.
   * `name` is the subsegment's, e.g. `## POST /api/chat`.
   */
  traceRequest<Response extends { readonly body?: unknown }>(
    name: string,
    run: () => Promise<Response>,
  ): Promise<Response>;
  /** Adds X-Ray annotations (indexed, searchable) to the current request's subsegment. */
  annotate(annotations: Readonly<Record<string, string | number | boolean | undefined>>): void;
  /** The model with a subsegment around each whole stream. */
  traceChatModel(model: ChatModel): ChatModel;
}

export interface TracingOptions {
  readonly enabled: boolean;
  /** Where a bundle without the tracer is warned about. @default nothing is written */
  readonly logger?: Pick<Logger, 'warn'>;
}

/**
 * esbuild `define` for a bundle without the tracer (about 125 KB of X-Ray SDK, tracer and their
 * dependencies): the stack's API function when its `tracing` setting is off. The import below
 * is then dead code that esbuild drops; set POWERTOOLS_TRACE_ENABLED on such a function and it
 * warns instead of tracing.
 */
export const TRACER_OMITTED_DEFINE = {
  'process.env.SERVICE_DESK_TRACER_BUNDLE': JSON.stringify('omitted'),
} as const;

/** The tracer module, or undefined in a bundle built with {@link TRACER_OMITTED_DEFINE}. */
const importTracer = () =>
  // A conditional expression, not an early return: esbuild drops only this form of dead import.
  process.env.SERVICE_DESK_TRACER_BUNDLE === 'omitted'
    ? undefined
    : import('@aws-lambda-powertools/tracer');

/** Subsegment and annotation key: alphanumerics and underscores only (X-Ray rejects others). */
const ANNOTATION_KEY = /^[A-Za-z0-9_]{1,500}$/;

export function createTracing(options: TracingOptions): Tracing {
  if (!options.enabled) return noTracing;
  const tracerModule = importTracer();
  if (!tracerModule) {
    options.logger?.warn(
      'tracing is on but this bundle was built without the tracer (stack tracing: false)',
    );
    return noTracing;
  }
  // Started at init, so that the first request does not pay for the import; every request
  // awaits it before its first AWS call, and the clients are captured by then.
  const captured: object[] = [];
  let tracer: Tracer | undefined;
  const ready = tracerModule.then(({ Tracer }) => {
    tracer = new Tracer({
      serviceName: METRICS_SERVICE,
      // Only the AWS SDK calls: the global http/fetch patch would add a second subsegment for
      // each SDK request and one for every JWKS fetch.
      captureHTTPsRequests: false,
    });
    for (const client of captured) tracer.captureAWSv3Client(client);
    return tracer;
  });
  const currentSubsegment = (): Subsegment | undefined => {
    if (!tracer?.isTracingEnabled()) return undefined;
    const segment = tracer.provider.getSegment();
    // Lambda's own (facade) segment cannot hold annotations; only subsegments (with a parent) can.
    return segment && 'parent' in segment ? segment : undefined;
  };

  return {
    enabled: true,
    captureClient(client) {
      if (tracer) tracer.captureAWSv3Client(client);
      else captured.push(client);
      return client;
    },
    async traceRequest(name, run) {
      const active = await ready;
      if (!active.isTracingEnabled()) return run();
      // captureAsyncFunc runs `run` in a context of its own whose current segment is the new
      // subsegment: the SDK calls of this request, even those after the handler has returned
      // (a streaming chat), nest under it. It leaves closing the subsegment to us.
      return active.provider.captureAsyncFunc(name, async (subsegment?: Subsegment) => {
        if (!subsegment) return run();
        try {
          const response = await run();
          if (response.body instanceof ReadableStream) {
            return { ...response, body: closeWhenConsumed(response.body, subsegment) };
          }
          subsegment.close();
          return response;
        } catch (error) {
          subsegment.close(error as Error);
          throw error;
        }
      }) as ReturnType<typeof run>;
    },
    annotate(annotations) {
      const subsegment = currentSubsegment();
      if (!subsegment) return;
      for (const [key, value] of Object.entries(annotations)) {
        if (value !== undefined && ANNOTATION_KEY.test(key)) subsegment.addAnnotation(key, value);
      }
    },
    traceChatModel(model) {
      return {
        stream(request: ChatModelRequest) {
          const parent = currentSubsegment();
          const inner = model.stream(request);
          return parent
            ? traceStream(inner, parent.addNewSubsegment('## ConverseStream stream'))
            : inner;
        },
      };
    },
  };
}

const noTracing: Tracing = {
  enabled: false,
  captureClient: (client) => client,
  traceRequest: (_name, run) => run(),
  annotate: () => undefined,
  traceChatModel: (model) => model,
};

/** The part of an X-Ray subsegment this module uses. */
interface Subsegment {
  addNewSubsegment(name: string): Subsegment;
  addAnnotation(key: string, value: string | number | boolean): void;
  close(error?: Error | string | null): void;
}

/**
 * The same body, closing `subsegment` once it has been read to the end, failed, or been
 * cancelled by the client — so the request's subsegment covers the whole streamed answer.
 */
function closeWhenConsumed(
  body: ReadableStream<Uint8Array>,
  subsegment: Subsegment,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let open = true;
  const close = (error?: unknown) => {
    if (!open) return;
    open = false;
    subsegment.close(error === undefined ? undefined : (error as Error));
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          close();
          controller.close();
        } else controller.enqueue(value);
      } catch (error) {
        close(error);
        controller.error(error);
      }
    },
    async cancel(reason) {
      close();
      await reader.cancel(reason);
    },
  });
}

/** Yields the model's events unchanged inside `subsegment`, closed however the stream ends. */
async function* traceStream(
  events: AsyncIterable<ChatModelEvent>,
  subsegment: Subsegment,
): AsyncGenerator<ChatModelEvent> {
  let failure: Error | undefined;
  try {
    for await (const event of events) {
      if (event.type === 'stop') subsegment.addAnnotation('stop_reason', event.reason);
      yield event;
    }
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    // A consumer that stops early (the user pressed stop) ends up here through return().
    subsegment.close(failure);
  }
}
