import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';

/**
 * Verifies an OpenID Connect issuer's access tokens with `jose` (ADR 0028): the signature with
 * the issuer's published keys (cached; an unknown `kid` refetches them, so a rotation is picked
 * up), `iss`, `aud`/`client_id`, `exp`/`nbf` with a small skew, an asymmetric `alg` only, and the
 * token type. Every refusal names why, as a code the web app explains.
 */

/** Why a token was refused; each is a 401 code of the error contract. */
export type TokenRefusal =
  | 'token_invalid'
  | 'token_expired'
  | 'token_not_yet_valid'
  | 'unknown_issuer'
  | 'wrong_audience'
  | 'unknown_signing_key';

export class TokenRefusedError extends Error {
  constructor(
    readonly reason: TokenRefusal,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TokenRefusedError';
  }
}

/** The issuer's discovery document or keys could not be fetched: nothing wrong with the token. */
export class IdentityProviderUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'IdentityProviderUnavailableError';
  }
}

/** A verified access token's claims. */
export type VerifiedClaims = Readonly<JWTPayload & Record<string, unknown>>;

export interface AccessTokenVerifier {
  /** The claims of a valid access token; throws `TokenRefusedError` or `IdentityProviderUnavailableError`. */
  verify(token: string): Promise<VerifiedClaims>;
}

/** Public-key algorithms only: no `none`, no HMAC (a public key must never serve as a shared secret). */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Clock difference tolerated between the issuer and the function, for `exp` and `nbf`. */
const CLOCK_SKEW_SECONDS = 60;

/** `typ` header values of an access token (RFC 9068's, and the plain one most issuers write). */
const ACCESS_TOKEN_TYPES = new Set(['jwt', 'at+jwt', 'application/at+jwt']);

export interface VerifierOptions {
  /** The `iss` every token must carry, exactly. */
  readonly issuer: string;
  /** Accepted `aud` or `client_id` values. */
  readonly audiences: readonly string[];
  /** The issuer's signing keys. */
  readonly keys: JWTVerifyGetKey;
}

/**
 * @example
 * const verifier = createAccessTokenVerifier({ issuer, audiences: [clientId], keys: discoveredKeys(issuer) });
 * const claims = await verifier.verify(token);
 */
export function createAccessTokenVerifier(options: VerifierOptions): AccessTokenVerifier {
  const { issuer, audiences, keys } = options;
  return {
    async verify(token) {
      // The unverified header and issuer first: a foreign issuer or a forbidden algorithm gets its
      // own answer instead of a key lookup that can only fail. Nothing unverified is trusted.
      let algorithm: unknown;
      let claimedIssuer: unknown;
      try {
        algorithm = decodeProtectedHeader(token).alg;
        claimedIssuer = decodeJwt(token).iss;
      } catch (error) {
        throw new TokenRefusedError('token_invalid', 'The token is not a JWT', { cause: error });
      }
      if (typeof algorithm !== 'string' || !ALGORITHMS.includes(algorithm))
        throw new TokenRefusedError('token_invalid', 'The token is not signed with a public key');
      if (claimedIssuer !== issuer)
        throw new TokenRefusedError('unknown_issuer', 'The token comes from another issuer');
      let verified: Awaited<ReturnType<typeof jwtVerify>>;
      try {
        verified = await jwtVerify(token, keys, {
          issuer,
          algorithms: ALGORITHMS,
          clockTolerance: CLOCK_SKEW_SECONDS,
        });
      } catch (error) {
        throw refusalOf(error);
      }
      const { payload, protectedHeader } = verified;
      if (!audienceMatches(payload, audiences))
        throw new TokenRefusedError('wrong_audience', 'The token is meant for another application');
      if (!isAccessToken(payload, protectedHeader.typ))
        throw new TokenRefusedError('token_invalid', 'The token is not an access token');
      return payload as VerifiedClaims;
    },
  };
}

function refusalOf(error: unknown): Error {
  if (error instanceof IdentityProviderUnavailableError) return error;
  if (error instanceof errors.JWTExpired)
    return new TokenRefusedError('token_expired', 'The token has expired', { cause: error });
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'nbf')
    return new TokenRefusedError('token_not_yet_valid', 'The token is not valid yet', {
      cause: error,
    });
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'iss')
    return new TokenRefusedError('unknown_issuer', 'The token comes from another issuer', {
      cause: error,
    });
  if (error instanceof errors.JWKSNoMatchingKey)
    return new TokenRefusedError('unknown_signing_key', 'The issuer no longer publishes its key', {
      cause: error,
    });
  return new TokenRefusedError('token_invalid', 'The token is invalid', { cause: error });
}

function audienceMatches(payload: JWTPayload, audiences: readonly string[]): boolean {
  const claimed = [
    ...(Array.isArray(payload.aud) ? payload.aud : payload.aud === undefined ? [] : [payload.aud]),
    ...(typeof payload.client_id === 'string' ? [payload.client_id] : []),
  ];
  return claimed.some((value) => audiences.includes(value));
}

/**
 * An access token, not an ID token sent in its place: `token_use: access` (Cognito), an RFC 9068
 * `typ`, or scopes (`scp` in Entra ID and Okta, `scope` elsewhere) — ID tokens carry none of them.
 */
function isAccessToken(payload: JWTPayload, type: string | undefined): boolean {
  if (type !== undefined && !ACCESS_TOKEN_TYPES.has(type.toLowerCase())) return false;
  if (payload.token_use !== undefined) return payload.token_use === 'access';
  return (
    type?.toLowerCase().endsWith('at+jwt') === true ||
    payload.scp !== undefined ||
    payload.scope !== undefined
  );
}

/**
 * Keys from a JWKS URL, cached by `jose` (refetched when a token names an unknown `kid`, at most
 * every 30 s); a failed fetch is the issuer's outage, not the caller's fault.
 */
export function remoteKeys(jwksUri: URL): JWTVerifyGetKey {
  const keys = createRemoteJWKSet(jwksUri);
  return async (header, token) => {
    try {
      return await keys(header, token);
    } catch (error) {
      if (
        error instanceof errors.JWKSNoMatchingKey ||
        error instanceof errors.JWKSMultipleMatchingKeys
      )
        throw error;
      throw new IdentityProviderUnavailableError('The issuer’s keys could not be fetched', {
        cause: error,
      });
    }
  };
}

/**
 * Keys of `issuer` found through its discovery document (`/.well-known/openid-configuration`),
 * fetched at the first token and kept; a failed discovery is tried again at the next token. A
 * document for another issuer is a misconfiguration, reported naming `OIDC_ISSUER`.
 */
export function discoveredKeys(
  issuer: string,
  fetchDocument: typeof fetch = fetch,
): JWTVerifyGetKey {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const discover = async (): Promise<JWTVerifyGetKey> => {
    const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    let document: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const response = await fetchDocument(url, { signal: AbortSignal.timeout(5000) });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      document = (await response.json()) as typeof document;
    } catch (error) {
      throw new IdentityProviderUnavailableError(
        `OIDC_ISSUER: the discovery document ${url} could not be read`,
        { cause: error },
      );
    }
    if (document.issuer !== issuer || typeof document.jwks_uri !== 'string')
      throw new IdentityProviderUnavailableError(
        `OIDC_ISSUER: ${url} names issuer ${String(document.issuer)}, not ${issuer}, or no jwks_uri`,
      );
    return remoteKeys(new URL(document.jwks_uri));
  };
  return async (header, token) => {
    keys ??= discover().catch((error: unknown) => {
      keys = undefined;
      throw error;
    });
    return (await keys)(header, token);
  };
}

/** The issuer of a Cognito user pool's tokens. */
export const cognitoIssuer = (region: string, userPoolId: string): string =>
  `https://cognito-idp.${region}.amazonaws.com/${userPoolId}`;
