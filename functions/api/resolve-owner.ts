import type { Owner } from '../chat/ports.js';
import {
  desksForRoles,
  holdsAny,
  type NamePair,
  type RoleRules,
  rolesFromClaims,
} from './caller-roles.js';
import { HttpError } from './http.js';
import {
  type AccessTokenVerifier,
  cognitoIssuer,
  createAccessTokenVerifier,
  discoveredKeys,
  IdentityProviderUnavailableError,
  remoteKeys,
  TokenRefusedError,
} from './verify-access-token.js';

/** The custom header carrying the access token (CloudFront OAC overwrites `Authorization`). */
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
  /** The role claim's values (Cognito groups, Entra app roles…); locally `DEV_USER_ROLES`'. */
  readonly roles: readonly string[];
  /** The desks whose tickets the caller may retrieve; always includes `all` (ADR 0028). */
  readonly desks: readonly string[];
  /** The token's `name` claim, else the user id: for display only, never a key. */
  readonly displayName: string;
}

export type ResolveOwner = (
  headers: Readonly<Record<string, string | undefined>>,
) => Promise<ResolvedCaller>;

export type { AccessTokenVerifier } from './verify-access-token.js';

export type IdentityOptions =
  | {
      readonly mode: 'local';
      readonly tenantId: string;
      /** Dev users who are knowledge editors; empty: every dev user is one. */
      readonly knowledgeEditors: readonly string[];
      /** Dev users who are service-desk leads; empty: every dev user is one. */
      readonly serviceDeskLeads: readonly string[];
      /** Dev user → role value pairs; the roles also grant editing and insights as in a token. */
      readonly devUserRoles: readonly NamePair[];
      readonly roles: RoleRules;
    }
  | {
      /** A verified access token: the stack's Cognito pool or any OpenID Connect issuer. */
      readonly mode: 'token';
      readonly tenantId: string;
      readonly verifier: AccessTokenVerifier;
      /** The claim carrying role values (`cognito:groups`, `roles`, a dotted path). */
      readonly roleClaim: string;
      /**
       * Refuse a token without the role claim (`no_role_claim`): an external issuer names every
       * user of the app in it. Cognito omits `cognito:groups` for a user in no group: plain staff.
       */
      readonly roleClaimRequired: boolean;
      readonly roles: RoleRules;
    };

/**
 * The caller's identity, from headers only — never from the body. In AWS: a verified access
 * token (signature, issuer, audience, expiry, token type) and its role claim. Locally: the dev
 * header, and the dev-user lists for editors and leads (an empty list: everyone, so the whole
 * app can be tried on built-in defaults) and `DEV_USER_ROLES` for roles and desks.
 */
export function createOwnerResolver(options: IdentityOptions): ResolveOwner {
  const { roles: rules } = options;
  if (options.mode === 'local') {
    const editors = new Set(options.knowledgeEditors);
    const leads = new Set(options.serviceDeskLeads);
    return async (headers) => {
      const userId = headers[DEV_USER_HEADER]?.trim() || DEFAULT_DEV_USER;
      if (!DEV_USER.test(userId))
        throw new HttpError('unauthorized', `Invalid ${DEV_USER_HEADER} header`);
      const roles = options.devUserRoles.filter(({ name }) => name === userId).map((p) => p.value);
      return {
        owner: { tenantId: options.tenantId, userId },
        canPublishKnowledge:
          editors.size === 0 || editors.has(userId) || holdsAny(roles, rules.editorRoles),
        canViewInsights: leads.size === 0 || leads.has(userId) || holdsAny(roles, rules.leadRoles),
        roles,
        desks: desksForRoles(roles, rules.deskRoles),
        displayName: userId,
      };
    };
  }
  return async (headers) => {
    const token = headers[AUTH_TOKEN_HEADER]?.replace(/^Bearer\s+/i, '').trim();
    if (!token) throw new HttpError('unauthorized', 'Sign-in required');
    let claims: Readonly<Record<string, unknown>>;
    try {
      claims = await options.verifier.verify(token);
    } catch (error) {
      if (error instanceof TokenRefusedError)
        throw new HttpError(error.reason, `${error.message}. Please sign in again.`, {
          cause: error,
        });
      if (error instanceof IdentityProviderUnavailableError)
        throw new HttpError('identity_provider_unavailable', 'Sign-in cannot be checked now', {
          cause: error,
        });
      throw error;
    }
    // A valid signature does not make the subject a usable owner key: the store joins tenant and
    // user with '#', so an empty subject or one containing '#' is refused here, not as a 500 later.
    const subject = claims.sub;
    if (typeof subject !== 'string' || subject === '' || subject.includes('#'))
      throw new HttpError('token_invalid', 'The access token has no usable subject');
    const claimed = rolesFromClaims(claims, options.roleClaim);
    if (claimed === undefined && options.roleClaimRequired)
      throw new HttpError(
        'no_role_claim',
        `Your account has no role for this app (no ${options.roleClaim} claim)`,
      );
    const roles = claimed ?? [];
    const name = claims.name;
    return {
      owner: { tenantId: options.tenantId, userId: subject },
      canPublishKnowledge: holdsAny(roles, rules.editorRoles),
      canViewInsights: holdsAny(roles, rules.leadRoles),
      roles,
      desks: desksForRoles(roles, rules.deskRoles),
      displayName: typeof name === 'string' && name.trim() !== '' ? name.trim() : subject,
    };
  };
}

/**
 * The stack's Cognito pool's verifier; created once per container so the key cache is reused.
 * `clientIds` are the app clients whose tokens are accepted: the staff's web client and the
 * acceptance suite's (lib/constructs/auth.ts). The pool's key URL is known: no discovery.
 */
export function createCognitoVerifier(
  userPoolId: string,
  clientIds: readonly string[],
): AccessTokenVerifier {
  const region = userPoolId.split('_')[0] ?? '';
  const issuer = cognitoIssuer(region, userPoolId);
  return createAccessTokenVerifier({
    issuer,
    audiences: clientIds,
    keys: remoteKeys(new URL(`${issuer}/.well-known/jwks.json`)),
  });
}

/** An OpenID Connect issuer's verifier; its keys are found through its discovery document. */
export function createOidcVerifier(
  issuer: string,
  audiences: readonly string[],
): AccessTokenVerifier {
  return createAccessTokenVerifier({ issuer, audiences, keys: discoveredKeys(issuer) });
}
