import { createSign, generateKeyPairSync, type KeyObject } from 'node:crypto';

export interface TestSigningKey {
  readonly kid: string;
  readonly privateKey: KeyObject;
  /** The public key as a JWKS, for `verifier.cacheJwks(jwks)` — no network involved. */
  readonly jwks: { keys: Record<string, unknown>[] };
}

export function createTestSigningKey(kid = 'test-key'): TestSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const jwk = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  return { kid, privateKey, jwks: { keys: [{ ...jwk, kid, alg: 'RS256', use: 'sig' }] } };
}

const base64Url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** An RS256 JWT signed with the test key, like the ones Cognito issues. */
export function signTestJwt(key: TestSigningKey, claims: Record<string, unknown>): string {
  const header = base64Url(JSON.stringify({ alg: 'RS256', kid: key.kid, typ: 'JWT' }));
  const payload = base64Url(JSON.stringify(claims));
  const signature = createSign('RSA-SHA256').update(`${header}.${payload}`).sign(key.privateKey);
  return `${header}.${payload}.${base64Url(signature)}`;
}
