import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough, type Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';

/** What the runtime is handed on `GET …/invocation/next`. */
export interface Invocation {
  readonly requestId: string;
  readonly event: unknown;
  readonly deadlineMs: number;
  readonly invokedFunctionArn: string;
  readonly traceId: string;
}

/** A function error as the runtime reports it (`formatError` in aws-lambda-ric). */
export interface FunctionError {
  readonly errorType: string;
  readonly errorMessage: string;
  readonly trace?: readonly string[];
}

/** The runtime's streamed answer to one invocation, from the first byte of `POST …/response`. */
export interface InvocationResponse {
  /** `application/vnd.awslambda.http-integration-response` after `HttpResponseStream.from`. */
  readonly contentType: string;
  /** Body bytes as the runtime sends them, paced by the bandwidth model. */
  readonly body: Readable;
  /** Settles when the runtime ends the request: with the trailer error, if it sent one. */
  readonly ended: Promise<{ readonly error?: FunctionError }>;
}

/** How the invocation ended before any response stream started. */
export type InvocationOutcome =
  | { readonly kind: 'response'; readonly response: InvocationResponse }
  | { readonly kind: 'error'; readonly error: FunctionError };

/**
 * Lambda's documented response-streaming bandwidth: the first 6 MiB of a response go out
 * uncapped, the rest at most 2 MiB/s. Modelled by holding the runtime's request back.
 */
export const STREAMING_BANDWIDTH = { burstBytes: 6 * 1024 * 1024, bytesPerSecond: 2 * 1024 * 1024 };

const PREFIX = '/2018-06-01/runtime';
const ERROR_TYPE = 'lambda-runtime-function-error-type';
const ERROR_BODY = 'lambda-runtime-function-error-body';

/**
 * The Runtime API of one execution environment, as RAPID serves it to the runtime client:
 * `GET /invocation/next` long-polls until the environment is given an invocation, the response
 * comes back on `POST /invocation/{id}/response` (streamed, chunked, error in trailers) or
 * `POST /invocation/{id}/error`, and an initialisation failure on `POST /init/error`.
 * One invocation at a time: Lambda never gives an environment a second one before the first ended.
 */
export class RuntimeApi {
  private server?: Server;
  private waitingRuntime?: ServerResponse;
  private pending?: {
    readonly invocation: Invocation;
    readonly settle: (outcome: InvocationOutcome) => void;
  };
  private initFailure?: (error: FunctionError) => void;

  constructor(private readonly bandwidth = STREAMING_BANDWIDTH) {}

  /** Listens on a free loopback port; returns `host:port` for `AWS_LAMBDA_RUNTIME_API`. */
  async listen(): Promise<string> {
    const server = createServer((request, response) => this.route(request, response));
    server.keepAliveTimeout = 0;
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  /**
   * True while the runtime waits on `GET /invocation/next` with nothing handed to it: its handler
   * has returned from every invocation it was given (tests wait on this instead of a pause).
   */
  get polling(): boolean {
    return this.waitingRuntime !== undefined && this.pending === undefined;
  }

  /** Called once if the runtime reports that loading the handler failed. */
  onInitError(listener: (error: FunctionError) => void): void {
    this.initFailure = listener;
  }

  /**
   * Hands the invocation to the runtime (now, or when it next polls) and resolves when the
   * runtime starts its response or reports an error.
   */
  invoke(invocation: Invocation): Promise<InvocationOutcome> {
    if (this.pending) throw new Error('This execution environment is already busy');
    return new Promise((settle) => {
      this.pending = { invocation, settle };
      if (this.waitingRuntime) this.deliver(this.waitingRuntime);
    });
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private route(request: IncomingMessage, response: ServerResponse): void {
    const path = request.url ?? '';
    if (request.method === 'GET' && path === `${PREFIX}/invocation/next`) {
      this.waitingRuntime = response;
      if (this.pending) this.deliver(response);
      return;
    }
    const invocationPath = /^\/2018-06-01\/runtime\/invocation\/([^/]+)\/(response|error)$/.exec(
      path,
    );
    if (request.method === 'POST' && invocationPath) {
      const requestId = decodeURIComponent(invocationPath[1] ?? '');
      if (this.pending?.invocation.requestId !== requestId) {
        answer(response, 400, { errorMessage: `Unknown request id ${requestId}` });
        return;
      }
      const { settle } = this.pending;
      this.pending = undefined;
      if (invocationPath[2] === 'error') {
        void readJson(request).then((error) => {
          settle({ kind: 'error', error: asFunctionError(error, request.headers[ERROR_TYPE]) });
          answer(response, 202, { status: 'OK' });
        });
        return;
      }
      settle({ kind: 'response', response: this.streamResponse(request, response) });
      return;
    }
    if (request.method === 'POST' && path === `${PREFIX}/init/error`) {
      void readJson(request).then((error) => {
        this.initFailure?.(asFunctionError(error, request.headers[ERROR_TYPE]));
        answer(response, 202, { status: 'OK' });
      });
      return;
    }
    answer(response, 404, { errorMessage: `No route ${request.method} ${path}` });
  }

  private deliver(runtime: ServerResponse): void {
    const invocation = this.pending?.invocation;
    if (!invocation) return;
    this.waitingRuntime = undefined;
    runtime.writeHead(200, {
      'content-type': 'application/json',
      'lambda-runtime-aws-request-id': invocation.requestId,
      'lambda-runtime-deadline-ms': String(invocation.deadlineMs),
      'lambda-runtime-invoked-function-arn': invocation.invokedFunctionArn,
      'lambda-runtime-trace-id': invocation.traceId,
    });
    runtime.end(JSON.stringify(invocation.event));
  }

  /**
   * The runtime's `POST …/response`: body bytes are passed on as they arrive (RAPID copies and
   * flushes after every write), past the burst at the capped rate, and the trailers read at the end.
   */
  private streamResponse(request: IncomingMessage, response: ServerResponse): InvocationResponse {
    const body = new PassThrough();
    const { burstBytes, bytesPerSecond } = this.bandwidth;
    const ended = (async (): Promise<{ error?: FunctionError }> => {
      const started = Date.now();
      let sent = 0;
      try {
        for await (const chunk of request as AsyncIterable<Buffer>) {
          // Past the burst a chunk is passed on only when the capped rate allows it; meanwhile
          // the runtime's socket fills up and its write() reports backpressure.
          sent += chunk.length;
          const due = started + (Math.max(0, sent - burstBytes) / bytesPerSecond) * 1000;
          if (due > Date.now()) await delay(due - Date.now());
          // The front end's own backpressure reaches the runtime's socket, as it would in AWS.
          if (!body.write(chunk)) await once(body, 'drain');
        }
      } catch {
        // The runtime died or was stopped mid-response: the caller sees a truncated stream.
        body.end();
        return { error: { errorType: 'Runtime.ExitError', errorMessage: 'Response aborted' } };
      }
      const errorType = request.trailers[ERROR_TYPE];
      body.end();
      answer(response, 202, { status: 'OK' });
      return errorType
        ? { error: decodeTrailerError(errorType, request.trailers[ERROR_BODY]) }
        : {};
    })();
    return {
      contentType: request.headers['content-type'] ?? 'application/octet-stream',
      body,
      ended,
    };
  }
}

function decodeTrailerError(errorType: string, errorBody: string | undefined): FunctionError {
  try {
    const decoded = JSON.parse(Buffer.from(errorBody ?? '', 'base64').toString('utf8'));
    return asFunctionError(decoded, errorType);
  } catch {
    return { errorType, errorMessage: '' };
  }
}

function asFunctionError(body: unknown, headerType: string | string[] | undefined): FunctionError {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Partial<FunctionError>;
  return {
    errorType: String(fields.errorType ?? headerType ?? 'Unknown'),
    errorMessage: String(fields.errorMessage ?? ''),
    trace: Array.isArray(fields.trace) ? fields.trace : undefined,
  };
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

function answer(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}
