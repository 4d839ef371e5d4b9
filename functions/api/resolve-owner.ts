import { CognitoJwtVerifier } from 'aws-jwt-verify';
import type { Owner } from '../chat/ports.js';
import { HttpError } from './http.js';

/** The custom header carrying the Cognito access token (CloudFront OAC overwrites `Authorization`). */
export const AUTH_TOKEN_HEADER = 'x-auth-token';
/** Local mode only: who the developer is pretending to be. */
export const DEV_USER_HEADER = 'x-dev-user';
export const DEFAULT_DEV_USER = 'local-user';

const DEV_USER = /^[A-Za-z0-9._@-]{1,64}$/;

/** Who is calling: the owner of the conversations they may see, and what they may do. */
export interface ResolvedCaller {
  readonly owner: Owner;
  /** A member of the knowledge editors (ADR 0011). */
  readonly canPublishKnowledge: boolean;
  /** A service-desk lead: may read the insights page (`GET /api/insights`, issue #28). */
  readonly canViewInsights: boolean;
}

export type ResolveOwner = (
  headers: Readonly<Record<string, string | undefined>>,
) => Promise<ResolvedCaller>;

/** Just the part of aws-jwt-verify's verifier we use (tests pass one with a cached JWKS). */
export interface AccessTokenVerifier {
  verify(token: string): Promise<{ sub: string; 'cognito:groups'?: readonly string[] }>;
}

export type IdentityOptions =
  | {
      readonly mode: 'local';
      readonly tenantId: string;
      /** Dev users who are knowledge editors; empty: every dev user is one. */
      readonly knowledgeEditors: readonly string[];
      /** Dev users who are service-desk leads; empty: every dev user is one. */
      readonly serviceDeskLeads: readonly string[];
    }
  | {
      readonly mode: 'cognito';
      readonly tenantId: string;
      readonly verifier: AccessTokenVerifier;
      /** Members of this Cognito group are knowledge editors (`cognito:groups` claim). */
      readonly knowledgeEditorGroup: string;
      /** Members of this Cognito group are service-desk leads (`cognito:groups` claim). */
      readonly serviceDeskLeadGroup: string;
    };

/**
 * The caller's identity, from headers only — never from the body. In AWS: a verified Cognito
 * access token (signature, issuer, client id, expiry, token use) and its groups. Locally: the
 * dev header, and the dev-user lists for editors and leads (an empty list: everyone, so the whole
 * app can be tried on built-in defaults).
 */
export function createOwnerResolver(options: IdentityOptions): ResolveOwner {
  if (options.mode === 'local') {
    const editors = new Set(options.knowledgeEditors);
    const leads = new Set(options.serviceDeskLeads);
    return async (headers) => {
      const userId = headers[DEV_USER_HEADER]?.trim() || DEFAULT_DEV_USER;
      if (!DEV_USER.test(userId))
        throw new HttpError('unauthorized', `Invalid ${DEV_USER_HEADER} header`);
      return {
        owner: { tenantId: options.tenantId, userId },
        canPublishKnowledge: editors.size === 0 || editors.has(userId),
        canViewInsights: leads.size === 0 || leads.has(userId),
      };
    };
  }
  const { knowledgeEditorGroup, serviceDeskLeadGroup } = options;
  return async (headers) => {
    const token = headers[AUTH_TOKEN_HEADER]?.replace(/^Bearer\s+/i, '').trim();
    if (!token) throw new HttpError('unauthorized', 'Sign-in required');
    let payload: Awaited<ReturnType<AccessTokenVerifier['verify']>>;
    try {
      payload = await options.verifier.verify(token);
    } catch (error) {
      throw new HttpError(
        'unauthorized',
        'Your session has expired or is invalid. Please sign in again.',
        { cause: error },
      );
    }
    // A valid signature does not make the subject a usable owner key: the store joins tenant and
    // user with '#', so an empty subject or one containing '#' is refused here, not as a 500 later.
    // Cognito's own subjects are UUIDs; this guards against a misconfigured or foreign issuer.
    if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.includes('#'))
      throw new HttpError('unauthorized', 'The access token has no usable subject');
    const claimed = payload['cognito:groups'];
    const groups: readonly string[] = Array.isArray(claimed) ? claimed : [];
    return {
      owner: { tenantId: options.tenantId, userId: payload.sub },
      canPublishKnowledge: groups.includes(knowledgeEditorGroup),
      canViewInsights: groups.includes(serviceDeskLeadGroup),
    };
  };
}

/**
 * The production verifier; created once per container so the JWKS cache is reused. `clientIds`
 * is the comma-separated list of app clients whose tokens are accepted: the staff's web client
 * and the acceptance suite's (lib/constructs/auth.ts).
 */
export function createCognitoVerifier(userPoolId: string, clientIds: string): AccessTokenVerifier {
  const clientId = clientIds
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  return CognitoJwtVerifier.create({ userPoolId, clientId, tokenUse: 'access' });
}
