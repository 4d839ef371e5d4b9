import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOidcVerifier } from '../../functions/api/resolve-owner.js';
import {
  type AccessTokenVerifier,
  IdentityProviderUnavailableError,
  TokenRefusedError,
} from '../../functions/api/verify-access-token.js';

/**
 * The OIDC verifier against issuers served over HTTP on 127.0.0.1: discovery, the JWKS, and each
 * way a token is refused with its own reason (issue #49). One issuer is trusted; a second one
 * signs with its own key and names itself.
 */

interface TestIssuer {
  readonly url: string;
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
  /** What discovery says the issuer is (another one: a misconfiguration). */
  documentIssuer?: string;
  readonly server: Server;
}

async function startIssuer(kid: string): Promise<TestIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  const server = createServer((request, response) => {
    const body =
      request.url === '/.well-known/openid-configuration'
        ? { issuer: issuer.documentIssuer ?? issuer.url, jwks_uri: `${issuer.url}/jwks` }
        : request.url === '/jwks'
          ? { keys: [publicJwk] }
          : undefined;
    response.writeHead(body ? 200 : 404, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body ?? {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer: TestIssuer = { url, kid, privateKey, publicJwk, server };
  return issuer;
}

const now = () => Math.floor(Date.now() / 1000);
const audience = 'service-desk-spa';

function token(
  issuer: TestIssuer,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  return new SignJWT({
    scp: 'access',
    roles: ['Staff'],
    iss: issuer.url,
    sub: 'user-1',
    aud: audience,
    iat: now(),
    exp: now() + 600,
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', kid: issuer.kid, typ: 'JWT', ...header })
    .sign(issuer.privateKey);
}

const base64Url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

let trusted: TestIssuer;
let second: TestIssuer;
let verifier: AccessTokenVerifier;
beforeAll(async () => {
  trusted = await startIssuer('trusted-key');
  second = await startIssuer('second-key');
  verifier = createOidcVerifier(trusted.url, [audience, 'acceptance-suite']);
});
afterAll(() => {
  trusted?.server.close();
  second?.server.close();
});

async function refusal(jwt: string): Promise<string> {
  const error = await verifier.verify(jwt).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TokenRefusedError);
  return (error as TokenRefusedError).reason;
}

describe('the OIDC access-token verifier', () => {
  it('accepts a token of the issuer for the audience, found through discovery', async () => {
    const claims = await verifier.verify(await token(trusted));
    expect(claims).toMatchObject({ sub: 'user-1', iss: trusted.url, roles: ['Staff'] });
    // `client_id` instead of `aud` (Cognito, RFC 9068) and an RFC 9068 type are accepted too.
    await expect(
      verifier.verify(
        await new SignJWT({ client_id: 'acceptance-suite', scope: 'openid' })
          .setProtectedHeader({ alg: 'RS256', kid: trusted.kid, typ: 'at+jwt' })
          .setIssuer(trusted.url)
          .setSubject('suite')
          .setExpirationTime(now() + 60)
          .sign(trusted.privateKey),
      ),
    ).resolves.toMatchObject({ sub: 'suite' });
  });

  it('refuses a token from a second issuer', async () => {
    expect(await refusal(await token(second))).toBe('unknown_issuer');
    // Even one that claims the trusted issuer: its key is not the issuer's.
    expect(await refusal(await token(second, { iss: trusted.url }))).toBe('unknown_signing_key');
  });

  it('refuses a token for another audience', async () => {
    expect(await refusal(await token(trusted, { aud: 'another-app' }))).toBe('wrong_audience');
  });

  it('refuses an unsigned token (alg none)', async () => {
    const unsigned = `${base64Url({ alg: 'none', typ: 'JWT' })}.${base64Url({
      iss: trusted.url,
      sub: 'user-1',
      aud: audience,
      scp: 'access',
      exp: now() + 600,
    })}.`;
    expect(await refusal(unsigned)).toBe('token_invalid');
  });

  it('refuses an HS256 token keyed with the issuer’s public key', async () => {
    const header = base64Url({ alg: 'HS256', kid: trusted.kid, typ: 'JWT' });
    const payload = base64Url({
      iss: trusted.url,
      sub: 'user-1',
      aud: audience,
      scp: 'access',
      exp: now() + 600,
    });
    const signature = createHmac('sha256', JSON.stringify(trusted.publicJwk))
      .update(`${header}.${payload}`)
      .digest('base64url');
    expect(await refusal(`${header}.${payload}.${signature}`)).toBe('token_invalid');
  });

  it('refuses an expired token, beyond the clock skew', async () => {
    expect(await refusal(await token(trusted, { exp: now() - 120, iat: now() - 900 }))).toBe(
      'token_expired',
    );
  });

  it('refuses a token that is not valid yet, beyond the clock skew', async () => {
    expect(await refusal(await token(trusted, { nbf: now() + 300 }))).toBe('token_not_yet_valid');
    // Within the skew: accepted.
    await expect(verifier.verify(await token(trusted, { nbf: now() + 20 }))).resolves.toBeDefined();
  });

  it('refuses a tampered token', async () => {
    const [header, , signature] = (await token(trusted)).split('.');
    const payload = base64Url({
      iss: trusted.url,
      sub: 'someone-else',
      aud: audience,
      scp: 'access',
      roles: ['service-desk-leads'],
      exp: now() + 600,
    });
    expect(await refusal(`${header}.${payload}.${signature}`)).toBe('token_invalid');
  });

  it('refuses a key the issuer does not publish', async () => {
    expect(await refusal(await token(trusted, {}, { kid: 'retired-key' }))).toBe(
      'unknown_signing_key',
    );
  });

  it('refuses an ID token sent instead of an access token', async () => {
    const idToken = await new SignJWT({ nonce: 'n' })
      .setProtectedHeader({ alg: 'RS256', kid: trusted.kid, typ: 'JWT' })
      .setIssuer(trusted.url)
      .setSubject('user-1')
      .setAudience(audience)
      .setExpirationTime(now() + 600)
      .sign(trusted.privateKey);
    expect(await refusal(idToken)).toBe('token_invalid');
    expect(await refusal(await token(trusted, { token_use: 'id' }))).toBe('token_invalid');
    expect(await refusal(await token(trusted, {}, { typ: 'id+jwt' }))).toBe('token_invalid');
    expect(await refusal('not.a-jwt')).toBe('token_invalid');
  });

  it('reports an issuer whose discovery names another issuer as unavailable, naming OIDC_ISSUER', async () => {
    const misnamed = await startIssuer('k');
    misnamed.documentIssuer = 'https://elsewhere.example.com';
    try {
      const misconfigured = createOidcVerifier(misnamed.url, [audience]);
      const error = await misconfigured.verify(await token(misnamed)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(IdentityProviderUnavailableError);
      expect((error as Error).message).toMatch(/OIDC_ISSUER/);
    } finally {
      misnamed.server.close();
    }
  });
});
