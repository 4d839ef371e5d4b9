import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccessTokenVerifier } from '../../functions/api/verify-access-token.js';
import { type ChatCallOptions, callApi, eventsNamed } from '../support/chat-client.js';
import { createTestTables, type TestTables } from '../support/dynamodb-test-tables.js';
import { createInMemoryInsightsStore } from '../support/in-memory-insights-store.js';
import { createInProcessApi } from '../support/in-process-api.js';
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

// Identity is the API's own rule (createOwnerResolver with the real jose verifier), so it runs in
// process: the verifier has the test's signing key and never fetches a JWKS
// (test/api/verify-access-token.test.ts serves one over HTTP).
// No header is special to the Function URL front, which passes x-auth-token through as is.
let tables: TestTables;
let api: ReturnType<typeof createInProcessApi>;
beforeAll(async () => {
  // DynamoDB Local accepts any signature; the SDK only needs some credentials to sign with.
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
  tables = await createTestTables('cloud-auth');
  const verifier = createAccessTokenVerifier({
    issuer,
    audiences: [clientId],
    keys: createLocalJWKSet(key.jwks as unknown as JSONWebKeySet),
  });
  api = createInProcessApi(
    {
      AUTH_MODE: 'cognito',
      COGNITO_USER_POOL_ID: userPoolId,
      COGNITO_CLIENT_ID: clientId,
      CONVERSATIONS_TABLE: tables.tables.conversations,
      TURNS_TABLE: tables.tables.turns,
      DYNAMODB_ENDPOINT: tables.endpoint,
      KNOWLEDGE_BASE_ID: 'unused',
      MODEL_ID: 'unused',
      BEDROCK_RUNTIME_ENDPOINT: 'http://127.0.0.1:9',
      BEDROCK_AGENT_RUNTIME_ENDPOINT: 'http://127.0.0.1:9',
      AWS_REGION: 'us-east-1',
      LOG_LEVEL: 'SILENT',
      METRICS: 'false',
    },
    {
      verifier,
      retriever: { search: async () => [], fetchByIssueIds: async () => [] },
      insights: createInMemoryInsightsStore(),
    },
  );
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await tables?.dispose();
});

const postChat = (body: unknown, options: ChatCallOptions) =>
  callApi(api, 'POST', '/api/chat', body, options);

const withToken = (token: string) => ({ headers: { 'x-auth-token': token } });

describe('cloud mode identity', () => {
  it.each([
    ['no token', {}, 'unauthorized'],
    [
      'a dev-user header instead of a token',
      { headers: { 'x-dev-user': 'staff-1' } },
      'unauthorized',
    ],
    ['a malformed token', withToken('not-a-jwt'), 'token_invalid'],
    [
      'an expired token',
      withToken(accessToken({ exp: now() - 600, iat: now() - 3600 })),
      'token_expired',
    ],
    [
      'a token for another client',
      withToken(accessToken({ client_id: 'someone-else' })),
      'wrong_audience',
    ],
    ['an ID token', withToken(accessToken({ token_use: 'id', aud: clientId })), 'token_invalid'],
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
      'token_invalid',
    ],
    // Verified tokens whose subject cannot be an owner key (the store joins tenant and user with '#').
    [
      'a verified token with an empty subject',
      withToken(accessToken({ sub: '' })),
      'token_invalid',
    ],
    [
      'a verified token whose subject contains #',
      withToken(accessToken({ sub: 'staff#2' })),
      'token_invalid',
    ],
  ])('answers 401 for %s and writes nothing', async (_name, options, code) => {
    const response = await postChat({ message: 'hi' }, options);
    expect(response.status).toBe(401);
    expect(response.json).toMatchObject({ error: { code } });
    const list = await callApi(
      api,
      'GET',
      '/api/conversations',
      undefined,
      withToken(accessToken()),
    );
    expect(list.json).toEqual({ items: [] });
  });

  it('accepts a valid access token and keys the conversation by its subject', async () => {
    // The model endpoint is unreachable here: the stream starts, then ends with an error event.
    const response = await postChat({ message: 'hi' }, withToken(accessToken()));
    expect(response.status).toBe(200);
    expect(eventsNamed(response, 'meta')).toHaveLength(1);
    expect(response.events.at(-1)?.event).toBe('error');
    const mine = await callApi(
      api,
      'GET',
      '/api/conversations',
      undefined,
      withToken(accessToken()),
    );
    expect((mine.json as { items: unknown[] }).items).toHaveLength(1);
    const theirs = await callApi(
      api,
      'GET',
      '/api/conversations',
      undefined,
      withToken(accessToken({ sub: 'staff-2' })),
    );
    expect((theirs.json as { items: unknown[] }).items).toHaveLength(0);
  });
});

describe('cloud mode roles', () => {
  it('makes a member of service-desk-leads a lead, and nobody else', async () => {
    const lead = withToken(accessToken({ 'cognito:groups': ['service-desk-leads'] }));
    const editor = withToken(accessToken({ 'cognito:groups': ['knowledge-editors'] }));
    const me = await callApi(api, 'GET', '/api/me', undefined, lead);
    expect(me.json).toMatchObject({ canViewInsights: true, canPublishKnowledge: false });
    expect((await callApi(api, 'GET', '/api/insights', undefined, lead)).status).toBe(200);
    for (const caller of [editor, withToken(accessToken())]) {
      const refused = await callApi(api, 'GET', '/api/insights', undefined, caller);
      expect(refused.status).toBe(403);
      expect((refused.json as { error: { code: string } }).error.code).toBe(
        'not_a_service_desk_lead',
      );
      expect((await callApi(api, 'GET', '/api/me', undefined, caller)).json).toMatchObject({
        canViewInsights: false,
      });
    }
  });
});
