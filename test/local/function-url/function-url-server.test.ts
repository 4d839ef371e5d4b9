import { request } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { installAwsLambdaGlobal } from '../../../local/function-url/aws-lambda-global.js';
import type { LambdaResponseStream } from '../../../local/function-url/lambda-response-stream.js';
import {
  type FunctionUrlServer,
  startFunctionUrlServer,
} from '../../../local/function-url/start-function-url-server.js';

type Handler = (event: APIGatewayProxyEventV2, stream: LambdaResponseStream) => Promise<void>;
interface AwsLambdaGlobal {
  streamifyResponse(handler: Handler): unknown;
  HttpResponseStream: { from(stream: LambdaResponseStream, prelude: object): LambdaResponseStream };
}
const awslambda = () => (globalThis as unknown as { awslambda: AwsLambdaGlobal }).awslambda;

interface ClientResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  chunks: Buffer[];
  body: string;
}

function send(
  url: string,
  options: { method?: string; path?: string; body?: string; onFirstChunk?: () => void } = {},
): Promise<ClientResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(options.path ?? '/api/test', url);
    const outgoing = request(target, { method: options.method ?? 'POST' }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => {
        if (chunks.length === 0) options.onFirstChunk?.();
        chunks.push(chunk);
      });
      incoming.on('end', () =>
        resolve({
          status: incoming.statusCode ?? 0,
          headers: incoming.headers,
          chunks,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      incoming.on('error', reject);
    });
    outgoing.setHeader('content-type', 'application/json');
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

describe('Function URL emulator', () => {
  let server: FunctionUrlServer | undefined;
  beforeAll(() => installAwsLambdaGlobal());
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function serve(handler: Handler): Promise<string> {
    server = await startFunctionUrlServer({
      handler: awslambda().streamifyResponse(handler),
      port: 0,
      log: () => undefined,
    });
    return server.url;
  }

  it('delivers the first write to the client before the handler writes again 300 ms later', async () => {
    let clientHasFirstBytes = false;
    let markFirstBytes: () => void = () => undefined;
    const firstBytes = new Promise<void>((resolve) => {
      markFirstBytes = resolve;
    });
    let seenBeforeSecondWrite: boolean | undefined;
    const url = await serve(async (_event, raw) => {
      const stream = awslambda().HttpResponseStream.from(raw, { statusCode: 200 });
      stream.write('first;');
      await Promise.race([firstBytes, new Promise((resolve) => setTimeout(resolve, 300))]);
      seenBeforeSecondWrite = clientHasFirstBytes;
      stream.write('second');
      stream.end();
    });
    const response = await send(url, {
      onFirstChunk: () => {
        clientHasFirstBytes = true;
        markFirstBytes();
      },
    });
    expect(seenBeforeSecondWrite).toBe(true);
    expect(response.body).toBe('first;second');
    expect(response.chunks.length).toBeGreaterThanOrEqual(2);
  });

  it('turns the JSON prelude and the 8 NUL bytes into status, headers and cookies', async () => {
    const url = await serve(async (_event, raw) => {
      const stream = awslambda().HttpResponseStream.from(raw, {
        statusCode: 201,
        headers: { 'content-type': 'text/event-stream', 'x-custom': 'yes' },
        cookies: ['a=1; Path=/', 'b=2'],
      });
      stream.write(Buffer.from([104, 105, 0, 0, 0, 0, 0, 0, 0, 0, 33]));
      stream.end();
    });
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

  it('flushes the prelude of an empty body', async () => {
    const url = await serve(async (_event, raw) => {
      awslambda()
        .HttpResponseStream.from(raw, { statusCode: 204, headers: { etag: '"v3"' } })
        .end();
    });
    const response = await send(url, { method: 'GET' });
    expect(response.status).toBe(204);
    expect(response.headers.etag).toBe('"v3"');
  });

  it('passes a Function URL payload v2 event', async () => {
    let received: APIGatewayProxyEventV2 | undefined;
    const url = await serve(async (event, raw) => {
      received = event;
      awslambda().HttpResponseStream.from(raw, { statusCode: 200 }).end('ok');
    });
    await send(url, { path: '/api/chat?limit=5&cursor=x', body: '{"message":"こんにちは"}' });
    expect(received).toMatchObject({
      version: '2.0',
      rawPath: '/api/chat',
      rawQueryString: 'limit=5&cursor=x',
      queryStringParameters: { limit: '5', cursor: 'x' },
      body: '{"message":"こんにちは"}',
      isBase64Encoded: false,
      requestContext: { http: { method: 'POST', path: '/api/chat' } },
    });
    expect(received?.headers['content-type']).toBe('application/json');
  });

  it('answers 502 when the handler fails before its first byte', async () => {
    const url = await serve(async () => {
      throw new Error('boom');
    });
    const response = await send(url);
    expect(response.status).toBe(502);
    expect(JSON.parse(response.body)).toEqual({ Message: 'Internal Server Error' });
  });

  it('refuses to set the content type after the first write', async () => {
    let failure: unknown;
    const url = await serve(async (_event, raw) => {
      raw.write('x');
      try {
        awslambda().HttpResponseStream.from(raw, { statusCode: 200 });
      } catch (error) {
        failure = error;
      }
      raw.end();
    });
    await send(url);
    expect(String(failure)).toContain('too late');
  });
});
