import { request } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type InvocationOutcome, RuntimeApi } from '../../../local/lambda/runtime-api.js';

// The Runtime API as a runtime client sees it, spoken to with plain node:http the way
// aws-lambda-ric's alternative client does (the client itself is exercised through the
// Function URL tests).

const PREFIX = '/2018-06-01/runtime';

function call(
  endpoint: string,
  method: string,
  path: string,
  options: {
    headers?: Record<string, string | string[]>;
    chunks?: (string | Buffer)[];
    trailers?: Record<string, string>;
  } = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `http://${endpoint}${path}`,
      { method, headers: options.headers },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            headers: incoming.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    for (const chunk of options.chunks ?? []) outgoing.write(chunk);
    if (options.trailers) outgoing.addTrailers(options.trailers);
    outgoing.end();
  });
}

const streaming = {
  'Lambda-Runtime-Function-Response-Mode': 'streaming',
  'Content-Type': 'application/vnd.awslambda.http-integration-response',
  'Transfer-Encoding': 'chunked',
  Trailer: ['Lambda-Runtime-Function-Error-Type', 'Lambda-Runtime-Function-Error-Body'],
};

const invocation = (requestId: string) => ({
  requestId,
  event: { rawPath: '/api/chat' },
  deadlineMs: 1_900_000_000_000,
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:f',
  traceId: 'Root=1-00000000-000000000000000000000000;Sampled=0',
});

async function readAll(outcome: InvocationOutcome): Promise<string> {
  if (outcome.kind !== 'response') throw new Error(`expected a response, got ${outcome.kind}`);
  const chunks: Buffer[] = [];
  for await (const chunk of outcome.response.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

describe('local Runtime API', () => {
  let api: RuntimeApi | undefined;
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });

  it('holds the next-invocation poll until an invocation comes, then sends it with its headers', async () => {
    api = new RuntimeApi();
    const endpoint = await api.listen();
    let answered = false;
    const next = call(endpoint, 'GET', `${PREFIX}/invocation/next`).then((response) => {
      answered = true;
      return response;
    });
    // The poll has reached the API and is held there: answering it now would have been its chance.
    await vi.waitFor(() => expect(api?.polling).toBe(true), { interval: 5 });
    // A round trip on another connection after the poll was taken: an answer written with it
    // would have arrived by now.
    expect((await call(endpoint, 'GET', `${PREFIX}/unknown`)).status).toBe(404);
    expect(answered).toBe(false);
    const outcome = api.invoke(invocation('req-1'));
    const received = await next;
    expect(JSON.parse(received.body)).toEqual({ rawPath: '/api/chat' });
    expect(received.headers).toMatchObject({
      'lambda-runtime-aws-request-id': 'req-1',
      'lambda-runtime-deadline-ms': '1900000000000',
      'lambda-runtime-invoked-function-arn': 'arn:aws:lambda:us-east-1:000000000000:function:f',
      'lambda-runtime-trace-id': 'Root=1-00000000-000000000000000000000000;Sampled=0',
    });
    const posted = call(endpoint, 'POST', `${PREFIX}/invocation/req-1/response`, {
      headers: streaming,
      chunks: ['{"statusCode":200}', Buffer.alloc(8), 'body'],
    });
    const settled = await outcome;
    expect(settled.kind === 'response' && settled.response.contentType).toBe(
      streaming['Content-Type'],
    );
    expect(await readAll(settled)).toBe('{"statusCode":200}\0\0\0\0\0\0\0\0body');
    expect((await posted).status).toBe(202);
  });

  it('reads the error trailers at the end of a streamed response', async () => {
    api = new RuntimeApi();
    const endpoint = await api.listen();
    const outcome = api.invoke(invocation('req-2'));
    await call(endpoint, 'GET', `${PREFIX}/invocation/next`);
    const error = { errorType: 'Error', errorMessage: 'boom', trace: ['Error: boom'] };
    void call(endpoint, 'POST', `${PREFIX}/invocation/req-2/response`, {
      headers: streaming,
      chunks: ['written before the error'],
      trailers: {
        'Lambda-Runtime-Function-Error-Type': 'Error',
        'Lambda-Runtime-Function-Error-Body': Buffer.from(JSON.stringify(error)).toString('base64'),
      },
    });
    const settled = await outcome;
    expect(await readAll(settled)).toBe('written before the error');
    expect(settled.kind === 'response' && (await settled.response.ended)).toEqual({ error });
  });

  it('reports an invocation error and an init error', async () => {
    api = new RuntimeApi();
    const endpoint = await api.listen();
    const initErrors: unknown[] = [];
    api.onInitError((error) => initErrors.push(error));
    await call(endpoint, 'POST', `${PREFIX}/init/error`, {
      headers: { 'Lambda-Runtime-Function-Error-Type': 'Runtime.ImportModuleError' },
      chunks: ['{"errorType":"Runtime.ImportModuleError","errorMessage":"no module"}'],
    });
    expect(initErrors).toEqual([
      { errorType: 'Runtime.ImportModuleError', errorMessage: 'no module', trace: undefined },
    ]);
    const outcome = api.invoke(invocation('req-3'));
    await call(endpoint, 'GET', `${PREFIX}/invocation/next`);
    await call(endpoint, 'POST', `${PREFIX}/invocation/req-3/error`, {
      chunks: ['{"errorType":"TypeError","errorMessage":"x is undefined","trace":[]}'],
    });
    expect(await outcome).toEqual({
      kind: 'error',
      error: { errorType: 'TypeError', errorMessage: 'x is undefined', trace: [] },
    });
  });

  it('passes the burst at once and holds the rest to the capped rate', async () => {
    // Scaled down from 6 MiB then 2 MiB/s: 1 KiB at once, then 10 KiB/s.
    api = new RuntimeApi({ burstBytes: 1024, bytesPerSecond: 10 * 1024 });
    const endpoint = await api.listen();
    const outcome = api.invoke(invocation('req-4'));
    await call(endpoint, 'GET', `${PREFIX}/invocation/next`);
    const started = Date.now();
    void call(endpoint, 'POST', `${PREFIX}/invocation/req-4/response`, {
      headers: { ...streaming, 'Content-Type': 'application/octet-stream' },
      chunks: [Buffer.alloc(1024, 'a'), Buffer.alloc(2048, 'b')],
    });
    const body = await readAll(await outcome);
    expect(body.length).toBe(3072);
    // 2 KiB past the burst at 10 KiB/s cannot arrive in less than 200 ms.
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
  });
});
