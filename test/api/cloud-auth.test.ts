import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type FunctionUrlServer,
  startFunctionUrlServer,
} from '../../local/function-url/start-function-url-server.js';
import { LocalLambdaFunction } from '../../local/lambda/local-lambda-function.js';
import { bundleTestHandler } from '../support/bundle-test-handler.js';
import { callApi, eventsNamed, postChat } from '../support/chat-client.js';
import { createTestTables, type TestTables } from '../support/dynamodb-test-tables.js';
import { createTestSigningKey, signTestJwt } from '../support/sign-test-jwt.js';

const userPoolId = 'us-east-1_TestPool1';
const clientId = 'test-client-id';
const key = createTestSigningKey();
const issuer = `https://cognito-idp.us-east-1.amazonaws.com/${userPoolId}`;
const now = () => Math.floor(Date.now() / 1000);
const accessToken = (claims: Record<string, unknown> = {}) =>
  signTestJwt(key, {
    sub: 'staff-1',
    iss: issuer,
    client_id: clientId,
    token_use: 'access',
    iat: now(),
    exp: now() + 600,
    ...claims,
  });

let tables: TestTables;
let lambda: LocalLambdaFunction;
let server: FunctionUrlServer;
beforeAll(async () => {
  tables = await createTestTables('cloud-auth');
  lambda = new LocalLambdaFunction({
    functionName: 'cloud-auth-test',
    bundlePath: await bundleTestHandler('test/api/handlers/cached-jwks-handler.ts'),
    environment: {
      AUTH_MODE: 'cognito',
      COGNITO_USER_POOL_ID: userPoolId,
      COGNITO_CLIENT_ID: clientId,
      TEST_JWKS: JSON.stringify(key.jwks),
      CONVERSATIONS_TABLE: tables.tables.conversations,
      TURNS_TABLE: tables.tables.turns,
      DYNAMODB_ENDPOINT: tables.endpoint,
      KNOWLEDGE_BASE_ID: 'unused',
      MODEL_ID: 'unused',
      BEDROCK_RUNTIME_ENDPOINT: 'http://127.0.0.1:9',
      BEDROCK_AGENT_RUNTIME_ENDPOINT: 'http://127.0.0.1:9',
      AWS_REGION: 'us-east-1',
      // DynamoDB Local accepts any signature; the SDK only needs some credentials to sign with.
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      LOG_LEVEL: 'SILENT',
      METRICS: 'false',
    },
    timeoutMs: 30_000,
    memoryMb: 1024,
    output: { stdout: process.stdout, stderr: process.stderr },
  });
  server = await startFunctionUrlServer({ function: lambda, port: 0, log: () => undefined });
});
afterAll(async () => {
  await server?.close();
  await lambda?.stop();
  await tables?.dispose();
});

const withToken = (token: string) => ({ headers: { 'x-auth-token': token } });

describe('cloud mode identity', () => {
  it.each([
    ['no token', {}],
    ['a dev-user header instead of a token', { headers: { 'x-dev-user': 'staff-1' } }],
    ['a malformed token', withToken('not-a-jwt')],
    ['an expired token', withToken(accessToken({ exp: now() - 60, iat: now() - 3600 }))],
    ['a token for another client', withToken(accessToken({ client_id: 'someone-else' }))],
    ['an ID token', withToken(accessToken({ token_use: 'id', aud: clientId }))],
    [
      'a token signed by another key',
      withToken(
        signTestJwt(createTestSigningKey(key.kid), {
          sub: 'x',
          iss: issuer,
          client_id: clientId,
          token_use: 'access',
          exp: now() + 600,
        }),
      ),
    ],
    // Verified tokens whose subject cannot be an owner key (the store joins tenant and user with '#').
    ['a verified token with an empty subject', withToken(accessToken({ sub: '' }))],
    ['a verified token whose subject contains #', withToken(accessToken({ sub: 'staff#2' }))],
  ])('answers 401 for %s and writes nothing', async (_name, options) => {
    const response = await postChat(server.url, { message: 'hi' }, options);
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ error: { code: 'unauthorized' } });
    const list = await callApi(
      server.url,
      'GET',
      '/api/conversations',
      undefined,
      withToken(accessToken()),
    );
    expect(list.json).toEqual({ items: [] });
  });

  it('accepts a valid access token and keys the conversation by its subject', async () => {
    // The model endpoint is unreachable here: the stream starts, then ends with an error event.
    const response = await postChat(server.url, { message: 'hi' }, withToken(accessToken()));
    expect(response.status).toBe(200);
    expect(eventsNamed(response, 'meta')).toHaveLength(1);
    expect(response.events.at(-1)?.event).toBe('error');
    const mine = await callApi(
      server.url,
      'GET',
      '/api/conversations',
      undefined,
      withToken(accessToken()),
    );
    expect((mine.json as { items: unknown[] }).items).toHaveLength(1);
    const theirs = await callApi(
      server.url,
      'GET',
      '/api/conversations',
      undefined,
      withToken(accessToken({ sub: 'staff-2' })),
    );
    expect((theirs.json as { items: unknown[] }).items).toHaveLength(0);
  });
});
