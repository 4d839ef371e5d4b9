import { once } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Invocations } from '../lambda/local-lambda-function.js';
import type { FunctionError } from '../lambda/runtime-api.js';
import { toFunctionUrlEvent } from './function-url-event.js';
import { HTTP_INTEGRATION_CONTENT_TYPE, HttpPreludeSplitter } from './http-prelude-splitter.js';

/** Where the front end reports what went wrong (the function's log in AWS). */
export type FunctionUrlLog = (message: string, error?: unknown) => void;

/**
 * One Function URL request in RESPONSE_STREAM mode — a model of the AWS front end: the request
 * becomes a payload v2 event, the function's streamed response becomes the HTTP response.
 *
 * - With `HttpResponseStream.from`, the bytes before the 8 NUL delimiter are the JSON prelude
 *   (status, headers, cookies); every body chunk is written to the socket as it arrives.
 * - A stream without that content type is passed through raw: 200 and its content type.
 * - `end()` with no prelude and no body → 200 with none of the handler's headers; `end(chunk)`
 *   as the first data (no prelude, bytes that are not one) → 502. As reported for the real
 *   runtime in aws-lambda-nodejs-runtime-interface-client issue #97.
 * - A failure before the first byte → 502 `{"Message":"Internal Server Error"}`; after it, every
 *   byte written is delivered and then the connection is cut, so the client sees the failure.
 * - Throttled (no environment free) → 429.
 */
export async function invokeFunctionUrl(
  invocations: Invocations,
  request: IncomingMessage,
  response: ServerResponse,
  log: FunctionUrlLog,
): Promise<void> {
  const body = await readBody(request);
  if (body === undefined) {
    return answer(response, 413, {
      Message: `Request must be smaller than ${MAX_INVOKE_PAYLOAD_BYTES} bytes for the InvokeFunction operation`,
    });
  }
  const event = toFunctionUrlEvent(request, body);
  response.socket?.setNoDelay(true);
  const result = await invocations.invoke(event);
  if (result.kind !== 'response') {
    log(`Invocation failed (${result.kind})`, describe(result.error));
    if (result.error.errorType === 'TooManyRequestsException') {
      return answer(response, 429, { Message: 'Rate Exceeded.' });
    }
    return answer(response, 502, { Message: 'Internal Server Error' });
  }

  const { contentType, body: stream, ended } = result.response;
  const integration = contentType === HTTP_INTEGRATION_CONTENT_TYPE;
  const splitter = new HttpPreludeSplitter(
    (prelude) => {
      const headers: Record<string, string | string[]> = { ...prelude.headers };
      if (prelude.cookies?.length) headers['set-cookie'] = prelude.cookies;
      response.writeHead(prelude.statusCode ?? 200, headers);
      response.flushHeaders();
    },
    (chunk) => response.write(chunk),
  );
  let malformedPrelude: unknown;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (!integration) {
      if (!response.headersSent) response.writeHead(200, { 'content-type': contentType });
      response.write(chunk);
    } else if (malformedPrelude === undefined) {
      try {
        splitter.push(chunk);
      } catch (error) {
        malformedPrelude = error;
      }
    }
    // A slow client holds the runtime back (through the Runtime API's socket), not memory here.
    if (response.writableNeedDrain) {
      await Promise.race([once(response, 'drain'), once(response, 'close')]);
    }
  }
  const { error } = await ended;

  if (error) {
    log('Invocation failed', describe(error));
    if (!response.headersSent) return answer(response, 502, { Message: 'Internal Server Error' });
    // Ending the socket (not destroying it) still flushes every byte written; closing it
    // without the last chunk is how a client learns that the body is incomplete.
    if (response.socket) response.socket.end();
    else response.destroy();
    return;
  }
  if (integration && !splitter.hasPrelude) {
    if (malformedPrelude === undefined && splitter.bytesBeforeDelimiter === 0) {
      response.writeHead(200);
      response.end();
      return;
    }
    log('The response has no HTTP prelude (end(chunk) before any write?)', malformedPrelude);
    return answer(response, 502, { Message: 'Internal Server Error' });
  }
  if (!response.headersSent) response.writeHead(200, { 'content-type': contentType });
  response.end();
}

function describe(error: FunctionError): Error {
  const described = new Error(`${error.errorType}: ${error.errorMessage}`);
  if (error.trace?.length) described.stack = error.trace.join('\n');
  return described;
}

function answer(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** Lambda's synchronous payload limit, which the Function URL applies to the request. */
const MAX_INVOKE_PAYLOAD_BYTES = 6 * 1024 * 1024;

/** The body, or undefined once it is past the payload limit (the rest is drained unread). */
async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request) {
    length += (chunk as Buffer).length;
    if (length <= MAX_INVOKE_PAYLOAD_BYTES) chunks.push(chunk as Buffer);
  }
  return length > MAX_INVOKE_PAYLOAD_BYTES ? undefined : Buffer.concat(chunks);
}
