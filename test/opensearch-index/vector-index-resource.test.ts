import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  type CustomResourceEvent,
  createSignedCollectionRequest,
  createVectorIndexResourceHandler,
} from '../../functions/opensearch-index/vector-index-resource.js';

/** One request the fake collection received. */
interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

type Answer = { status: number; body: unknown };

/**
 * A stand-in for an OpenSearch Serverless collection and CloudFormation's response URL, on one
 * real HTTP server: each test scripts the answers per `METHOD path`; CloudFormation's PUT to
 * `/response` is recorded.
 */
let server: Server;
let endpoint: string;
let received: Received[];
let responses: Record<string, unknown>[];
let script: Map<string, Answer[]>;
let fallback: (method: string, path: string) => Answer;

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const path = request.url ?? '/';
      if (path === '/response') {
        responses.push(JSON.parse(body));
        response.end();
        return;
      }
      received.push({ method: request.method ?? '', path, headers: request.headers, body });
      const key = `${request.method} ${path}`;
      const answer = script.get(key)?.shift() ?? fallback(request.method ?? '', path);
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  received = [];
  responses = [];
  script = new Map();
  fallback = () => ({ status: 200, body: {} });
});

const definition = {
  settings: { index: { knn: true } },
  mappings: { properties: { vector: { type: 'knn_vector', dimension: 1024 } } },
};

const event = (
  RequestType: CustomResourceEvent['RequestType'],
  PhysicalResourceId?: string,
): CustomResourceEvent => ({
  RequestType,
  ResponseURL: `${endpoint}/response`,
  StackId: 'arn:aws:cloudformation:us-east-1:123456789012:stack/test/1',
  RequestId: 'request-1',
  LogicalResourceId: 'VectorIndex',
  PhysicalResourceId,
  ResourceProperties: {
    CollectionEndpoint: endpoint,
    IndexName: 'tickets-abc',
    IndexDefinition: JSON.stringify(definition),
    VectorField: 'vector',
  },
});

/** A handler with millisecond delays and `budgetMs` of Lambda time. */
function handlerWith(budgetMs = 10_000) {
  const deadline = Date.now() + budgetMs;
  return createVectorIndexResourceHandler({
    request: createSignedCollectionRequest({
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' },
    }),
    remainingMs: () => deadline - Date.now(),
    reserveMs: 0,
    initialDelayMs: 5,
    maxDelayMs: 20,
    requiredSuccesses: 2,
    probeIntervalMs: 1,
    log: () => {},
  });
}

const calls = () => received.map((request) => `${request.method} ${request.path}`);

describe('Custom::OpenSearchVectorIndex', () => {
  it('creates the index with a signed aoss request, then waits until it answers twice', async () => {
    script.set('GET /tickets-abc/_mapping', [{ status: 404, body: { error: 'no such index' } }]);
    await handlerWith()(event('Create'));
    expect(calls()).toEqual([
      'PUT /tickets-abc',
      // The first probe: not queryable yet ("no such index"); retried.
      'GET /tickets-abc/_mapping',
      'GET /tickets-abc/_mapping',
      'POST /tickets-abc/_search',
      'GET /tickets-abc/_mapping',
      'POST /tickets-abc/_search',
    ]);
    const put = received[0];
    expect(JSON.parse(put?.body ?? '')).toEqual(definition);
    expect(put?.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/aoss\/aws4_request, SignedHeaders=.*x-amz-content-sha256.*, Signature=[0-9a-f]{64}$/,
    );
    expect(put?.headers['x-amz-security-token']).toBe('token');
    expect(responses).toEqual([
      expect.objectContaining({
        Status: 'SUCCESS',
        PhysicalResourceId: 'tickets-abc',
        RequestId: 'request-1',
        LogicalResourceId: 'VectorIndex',
      }),
    ]);
  });

  it('retries while the data access policy is not in force yet (403), then succeeds', async () => {
    const forbidden = { status: 403, body: { message: 'Forbidden' } };
    script.set('PUT /tickets-abc', [forbidden, forbidden, forbidden]);
    await handlerWith()(event('Create'));
    expect(calls().filter((call) => call === 'PUT /tickets-abc')).toHaveLength(4);
    expect(responses[0]).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'tickets-abc' });
  });

  it('accepts an index that exists with the same definition (a retried create)', async () => {
    const exists = { error: { type: 'resource_already_exists_exception' } };
    script.set('PUT /tickets-abc', [{ status: 400, body: exists }]);
    script.set('GET /tickets-abc/_mapping', [
      { status: 200, body: { 'tickets-abc': { mappings: definition.mappings } } },
    ]);
    await handlerWith()(event('Create'));
    expect(responses[0]).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'tickets-abc' });
  });

  it('fails when the existing index has another dimension', async () => {
    const exists = { error: { type: 'resource_already_exists_exception' } };
    script.set('PUT /tickets-abc', [{ status: 400, body: exists }]);
    script.set('GET /tickets-abc/_mapping', [
      {
        status: 200,
        body: { 'tickets-abc': { mappings: { properties: { vector: { dimension: 1536 } } } } },
      },
    ]);
    await handlerWith()(event('Create'));
    expect(responses[0]).toMatchObject({
      Status: 'FAILED',
      Reason: expect.stringMatching(/exists with another definition.*1536.*1024/),
      // A failed create names no index, so its Delete touches nothing.
      PhysicalResourceId: 'failed-request-1',
    });
  });

  it('fails at once, with the answer as the reason, on a mapping the collection rejects', async () => {
    script.set('PUT /tickets-abc', [
      { status: 400, body: { error: { type: 'mapper_parsing_exception' } } },
    ]);
    await handlerWith()(event('Create'));
    expect(calls()).toEqual(['PUT /tickets-abc']);
    expect(responses[0]).toMatchObject({
      Status: 'FAILED',
      Reason: expect.stringContaining('HTTP 400 {"error":{"type":"mapper_parsing_exception"}}'),
    });
  });

  it('gives up before the Lambda deadline with FAILED and the last answer as the reason', async () => {
    fallback = () => ({ status: 403, body: { message: 'Forbidden' } });
    await handlerWith(200)(event('Create'));
    expect(calls().length).toBeGreaterThan(1);
    expect(responses).toEqual([
      expect.objectContaining({
        Status: 'FAILED',
        Reason: expect.stringMatching(/create tickets-abc gave up after \d+ attempts.*HTTP 403/),
      }),
    ]);
  });

  it('deletes the index on Delete', async () => {
    await handlerWith()(event('Delete', 'tickets-abc'));
    expect(calls()).toEqual(['DELETE /tickets-abc']);
    expect(responses[0]).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'tickets-abc' });
  });

  it('treats an index that is already gone as deleted', async () => {
    script.set('DELETE /tickets-abc', [{ status: 404, body: { error: 'index_not_found' } }]);
    await handlerWith()(event('Delete', 'tickets-abc'));
    expect(responses[0]).toMatchObject({ Status: 'SUCCESS' });
  });

  it('deletes nothing for a create that failed before naming the index', async () => {
    await handlerWith()(event('Delete', 'failed-request-0'));
    expect(calls()).toEqual([]);
    expect(responses[0]).toMatchObject({
      Status: 'SUCCESS',
      PhysicalResourceId: 'failed-request-0',
    });
  });
});
