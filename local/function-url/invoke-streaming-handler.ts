import type { IncomingMessage, ServerResponse } from 'node:http';
import { isStreamingHandler } from './aws-lambda-global.js';
import { toFunctionUrlEvent } from './function-url-event.js';
import { HttpPreludeSplitter } from './http-prelude-splitter.js';
import { createLambdaContext } from './lambda-context.js';
import { HTTP_INTEGRATION_CONTENT_TYPE, LambdaResponseStream } from './lambda-response-stream.js';

export interface InvokeOptions {
  readonly functionName: string;
  readonly timeoutMs: number;
  /** Where handler failures are reported (the function's log). */
  readonly log: (message: string, error?: unknown) => void;
}

/**
 * One Function URL invocation in RESPONSE_STREAM mode: request → payload v2 event → handler;
 * the handler's bytes are split into prelude and body and every body chunk is written to the
 * socket the moment the handler writes it.
 */
export async function invokeStreamingHandler(
  handler: unknown,
  request: IncomingMessage,
  response: ServerResponse,
  options: InvokeOptions,
): Promise<void> {
  if (!isStreamingHandler(handler))
    throw new Error('The handler is not wrapped by awslambda.streamifyResponse');
  const body = await readBody(request);
  const event = toFunctionUrlEvent(request, body);
  const context = createLambdaContext({ ...options, requestId: event.requestContext.requestId });
  response.socket?.setNoDelay(true);

  const splitter = new HttpPreludeSplitter(
    (prelude) => {
      const headers: Record<string, string | string[]> = { ...prelude.headers };
      if (prelude.cookies?.length) headers['set-cookie'] = prelude.cookies;
      response.writeHead(prelude.statusCode ?? 200, headers);
      response.flushHeaders();
    },
    (chunk) => response.write(chunk),
  );
  let rawStarted = false;
  const stream = new LambdaResponseStream((chunk) => {
    if (stream.contentType === HTTP_INTEGRATION_CONTENT_TYPE) return splitter.push(chunk);
    if (!rawStarted) {
      rawStarted = true;
      response.writeHead(200, { 'content-type': stream.contentType });
    }
    response.write(chunk);
  });
  const finished = new Promise<void>((resolve) => stream.once('finish', resolve));

  const timeout = setTimeout(() => {
    options.log(`Task timed out after ${options.timeoutMs / 1000} seconds`);
    response.destroy();
  }, options.timeoutMs);
  try {
    await handler(event, stream, context);
    await Promise.race([finished, rejectIfUnfinished(stream)]);
    response.end();
  } catch (error) {
    options.log('Handler failed', error);
    if (!response.headersSent) {
      // What a Function URL answers when the function fails before streaming anything.
      response.writeHead(502, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ Message: 'Internal Server Error' }));
    } else {
      // Mid-stream failures only reach Lambda as trailers; the client sees a truncated body.
      response.destroy();
    }
  } finally {
    clearTimeout(timeout);
  }
}

async function rejectIfUnfinished(stream: LambdaResponseStream): Promise<never> {
  await new Promise((resolve) => setImmediate(resolve));
  if (stream.writableFinished) return new Promise(() => undefined);
  throw new Error('Response stream is not finished.');
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
