import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type FunctionUrlServer,
  startFunctionUrlServer,
} from '../../../local/function-url/start-function-url-server.js';
import { LocalLambdaFunction } from '../../../local/lambda/local-lambda-function.js';

// The handlers in fixtures/streaming-handlers.mjs run in execution environments with the real
// runtime interface client (aws-lambda-ric); these tests pin what a client of the Function URL
// sees for each way a streaming handler can write, end or fail.

const HANDLERS = fileURLToPath(new URL('./fixtures/streaming-handlers.mjs', import.meta.url));
const FAILING_INIT = fileURLToPath(new URL('./fixtures/failing-init.mjs', import.meta.url));

interface ClientResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  chunks: Buffer[];
  body: string;
  /** Set when the connection ended before the response was complete. */
  failure?: Error;
}

function send(
  url: string,
  options: {
    method?: string;
    path?: string;
    body?: string;
    onFirstChunk?: () => void;
    onEnd?: () => void;
  } = {},
): Promise<ClientResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(options.path ?? '/api/test', url);
    const outgoing = request(target, { method: options.method ?? 'POST' }, (incoming) => {
      const chunks: Buffer[] = [];
      const result = () => ({
        status: incoming.statusCode ?? 0,
        headers: incoming.headers,
        chunks,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      incoming.on('data', (chunk: Buffer) => {
        if (chunks.length === 0) options.onFirstChunk?.();
        chunks.push(chunk);
      });
      incoming.on('end', () => {
        options.onEnd?.();
        resolve(result());
      });
      incoming.on('error', (failure) => resolve({ ...result(), failure }));
    });
    outgoing.setHeader('content-type', 'application/json');
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

/**
 * Gates a handler waits on (`GET {url}/{name}` answers once the gate opens), so a test can prove
 * an order of events across processes without timing: if the order were wrong, the handler
 * would wait until the function timeout and the test would fail.
 */
async function startGates(): Promise<{
  url: string;
  open(name: string): void;
  /** Opens `name` once `count` requests are waiting on it. */
  openWhenWaiting(name: string, count: number): void;
  /** Resolves once a request waits on `name`. */
  reached(name: string): Promise<void>;
  close(): Promise<void>;
}> {
  const waiting = new Map<string, (() => void)[]>();
  const opened = new Set<string>();
  const thresholds = new Map<string, number>();
  const watchers = new Map<string, () => void>();
  const open = (name: string) => {
    opened.add(name);
    for (const release of waiting.get(name) ?? []) release();
    waiting.delete(name);
  };
  const server: Server = createServer((incoming, response) => {
    const name = (incoming.url ?? '/').slice(1);
    const release = () => response.end('open');
    if (opened.has(name)) return release();
    const queue = [...(waiting.get(name) ?? []), release];
    waiting.set(name, queue);
    watchers.get(name)?.();
    if (queue.length >= (thresholds.get(name) ?? Number.POSITIVE_INFINITY)) open(name);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    open,
    openWhenWaiting: (name, count) => thresholds.set(name, count),
    reached: (name) =>
      waiting.has(name) ? Promise.resolve() : new Promise((resolve) => watchers.set(name, resolve)),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('Function URL in front of the real Lambda runtime client', () => {
  let server: FunctionUrlServer | undefined;
  let lambda: LocalLambdaFunction | undefined;
  let gates: Awaited<ReturnType<typeof startGates>> | undefined;
  let functionLog = '';
  afterEach(async () => {
    await server?.close();
    await lambda?.stop();
    await gates?.close();
    server = undefined;
    lambda = undefined;
    gates = undefined;
    functionLog = '';
  });

  async function serve(
    handlerName: string,
    options: { timeoutMs?: number; maxEnvironments?: number; bundlePath?: string } = {},
  ): Promise<string> {
    const output = new Writable({
      write(chunk, _encoding, callback) {
        functionLog += String(chunk);
        callback();
      },
    });
    lambda = new LocalLambdaFunction({
      functionName: 'function-url-test',
      bundlePath: options.bundlePath ?? HANDLERS,
      handlerName,
      environment: {},
      timeoutMs: options.timeoutMs ?? 10_000,
      memoryMb: 128,
      maxEnvironments: options.maxEnvironments,
      output: { stdout: output, stderr: output },
    });
    server = await startFunctionUrlServer({ function: lambda, port: 0, log: () => undefined });
    gates = await startGates();
    return server.url;
  }
  const gated = (path = '/api/test') => `${path}?gates=${encodeURIComponent(gates?.url ?? '')}`;

  it('delivers the first write to the client while the handler is still running', async () => {
    const url = await serve('firstWriteThenWaits');
    const response = await send(url, {
      path: gated(),
      onFirstChunk: () => gates?.open('client-has-first-bytes'),
    });
    expect(response.failure).toBeUndefined();
    expect(response.headers['content-type']).toBe('text/plain');
    expect(response.body).toBe('first;second');
    expect(response.chunks.length).toBeGreaterThanOrEqual(2);
  });

  it('ends the response when the handler calls end(), not when its promise settles', async () => {
    const url = await serve('endsThenKeepsRunning');
    const response = await send(url, {
      path: gated(),
      onEnd: () => gates?.open('client-has-end'),
    });
    expect(response.failure).toBeUndefined();
    expect(response.body).toBe('done');
  });

  it('turns the JSON prelude and the 8 NUL bytes into status, headers and cookies', async () => {
    const url = await serve('preludeWithCookies');
    const response = await send(url);
    expect(response.status).toBe(201);
    expect(response.headers['content-type']).toBe('text/event-stream');
    expect(response.headers['x-custom']).toBe('yes');
    expect(response.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2']);
    // NUL bytes after the delimiter belong to the body.
    expect(Buffer.concat(response.chunks)).toEqual(
      Buffer.from([104, 105, 0, 0, 0, 0, 0, 0, 0, 0, 33]),
    );
  });

  it('answers 200 without the handler’s status or headers when end() sends no prelude', async () => {
    const url = await serve('endsWithoutBody');
    const response = await send(url, { method: 'GET' });
    expect(response.status).toBe(200);
    expect(response.headers.etag).toBeUndefined();
    expect(response.body).toBe('');
  });

  it('answers 502 when end(chunk) is the first data (no prelude, body taken for one)', async () => {
    const url = await serve('endsWithChunkFirst');
    const response = await send(url);
    expect(response.status).toBe(502);
    expect(response.headers['x-foo']).toBeUndefined();
    expect(JSON.parse(response.body)).toEqual({ Message: 'Internal Server Error' });
  });

  it('passes a stream without HttpResponseStream.from through with its own content type', async () => {
    const url = await serve('rawStream');
    const response = await send(url);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.body).toBe('raw bytes');
  });

  it('passes a Function URL payload v2 event', async () => {
    const url = await serve('echoesEvent');
    const response = await send(url, {
      path: '/api/chat?limit=5&cursor=x',
      body: '{"message":"こんにちは"}',
    });
    const received = JSON.parse(response.body) as APIGatewayProxyEventV2;
    expect(received).toMatchObject({
      version: '2.0',
      rawPath: '/api/chat',
      rawQueryString: 'limit=5&cursor=x',
      queryStringParameters: { limit: '5', cursor: 'x' },
      body: '{"message":"こんにちは"}',
      isBase64Encoded: false,
      requestContext: { http: { method: 'POST', path: '/api/chat' } },
    });
    expect(received.headers['content-type']).toBe('application/json');
  });

  it('answers 502 when the handler fails before its first byte', async () => {
    const url = await serve('failsBeforeFirstByte');
    const response = await send(url);
    expect(response.status).toBe(502);
    expect(JSON.parse(response.body)).toEqual({ Message: 'Internal Server Error' });
    expect(functionLog).toContain('boom before the first byte');
  });

  it('delivers every byte written before a failure, then cuts the response', async () => {
    const url = await serve('failsAfterFirstBytes');
    const response = await send(url);
    expect(response.status).toBe(200);
    // Both writes of the failing tick arrive; the trailers tell the front end it failed.
    expect(response.body).toBe('partial;same tick;');
    expect(response.failure).toBeDefined();
    expect(functionLog).toContain('boom after the first byte');
  });

  it('refuses to set the content type after the first write', async () => {
    const url = await serve('setsContentTypeTooLate');
    const response = await send(url);
    expect(response.body).toContain('too late');
  });

  it('times out a handler that returns without end(), and replaces its environment', async () => {
    const url = await serve('returnsWithoutEnd', { timeoutMs: 1_000 });
    const response = await send(url);
    expect(response.body).toBe('never ended');
    expect(response.failure).toBeDefined();
    expect(functionLog).toContain('Task timed out after 1.00 seconds');
    await send(url);
    expect(lambda?.coldStarts).toBe(2);
  });

  it('answers 502 when the module fails at init, and tries a new environment next time', async () => {
    const url = await serve('handler', { bundlePath: FAILING_INIT });
    const response = await send(url);
    expect(response.status).toBe(502);
    expect(JSON.parse(response.body)).toEqual({ Message: 'Internal Server Error' });
    expect(functionLog).toContain('configuration rejected at init');
    expect((await send(url)).status).toBe(502);
    expect(lambda?.coldStarts).toBe(2);
  });

  it('reuses a warm environment for the next invocation', async () => {
    const url = await serve('countsInvocations');
    const first = JSON.parse((await send(url)).body) as { pid: number; invocations: number };
    const second = JSON.parse((await send(url)).body) as { pid: number; invocations: number };
    expect(second.pid).toBe(first.pid);
    expect([first.invocations, second.invocations]).toEqual([1, 2]);
    expect(lambda?.coldStarts).toBe(1);
  });

  it('runs concurrent invocations in separate environments, each with its own cold start', async () => {
    const url = await serve('countsInvocations');
    // Opens only when both invocations wait at once: one environment for both would deadlock.
    gates?.openWhenWaiting('all-arrived', 2);
    const responses = await Promise.all([
      send(url, { path: gated() }),
      send(url, { path: gated() }),
    ]);
    const bodies = responses.map((response) => JSON.parse(response.body) as { pid: number });
    expect(new Set(bodies.map((body) => body.pid)).size).toBe(2);
    expect(bodies).toEqual([
      expect.objectContaining({ invocations: 1 }),
      expect.objectContaining({ invocations: 1 }),
    ]);
    expect(lambda?.coldStarts).toBe(2);
  });

  it('throttles with 429 when every allowed environment is busy', async () => {
    const url = await serve('countsInvocations', { maxEnvironments: 1 });
    const waiting = send(url, { path: gated() });
    // The second request comes while the only environment is busy with the first.
    await gates?.reached('all-arrived');
    const throttled = await send(url);
    gates?.open('all-arrived');
    expect(throttled.status).toBe(429);
    expect((await waiting).status).toBe(200);
  });
});
