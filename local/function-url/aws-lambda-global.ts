import {
  HTTP_INTEGRATION_CONTENT_TYPE,
  type LambdaResponseStream,
} from './lambda-response-stream.js';

export interface HttpResponsePrelude {
  statusCode?: number;
  headers?: Record<string, string>;
  cookies?: string[];
}

type StreamingHandler = (
  event: unknown,
  stream: LambdaResponseStream,
  context: unknown,
) => Promise<unknown>;

/**
 * Installs the `awslambda` global the Lambda Node runtime injects, with the same behaviour as the
 * runtime: `streamifyResponse` marks the handler, `HttpResponseStream.from` sets the integration
 * content type and, on the first write, emits the JSON prelude followed by 8 NUL bytes.
 * Must run before a handler module is imported (middy calls `streamifyResponse` at load time).
 */
export function installAwsLambdaGlobal(): void {
  const target = globalThis as { awslambda?: Record<string, unknown> };
  if (typeof target.awslambda?.streamifyResponse === 'function') return;
  // The SDK's @aws/lambda-invoke-store may already have created the object (for its
  // InvokeStore, as in the real runtime): add to it rather than replace it.
  target.awslambda = Object.assign(target.awslambda ?? {}, {
    streamifyResponse(handler: StreamingHandler) {
      if (handler.constructor.name !== 'AsyncFunction') {
        throw new Error('Streaming does not support non-async handlers.');
      }
      return Object.assign(handler, { [STREAMING_HANDLER]: true });
    },
    HttpResponseStream: {
      from(stream: LambdaResponseStream, prelude: HttpResponsePrelude) {
        stream.setContentType(HTTP_INTEGRATION_CONTENT_TYPE);
        const metadata = JSON.stringify(prelude);
        stream._onBeforeFirstWrite = (write) => {
          write(metadata);
          write(new Uint8Array(8));
        };
        return stream;
      },
    },
  });
}

/** Set on handlers wrapped by `awslambda.streamifyResponse`. */
export const STREAMING_HANDLER = Symbol.for('local.awslambda.streaming');

export function isStreamingHandler(handler: unknown): handler is StreamingHandler {
  return typeof handler === 'function' && STREAMING_HANDLER in handler;
}
