import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import { DEV_ACCOUNTS, type DevAccount } from './dev-accounts.js';

/** The SPA's client id at the local provider; also the access tokens' `aud` (`OIDC_AUDIENCE`). */
export const LOCAL_OIDC_CLIENT_ID = 'service-desk-local';
/** The API as a resource server: tokens for it are JWTs the function verifies. */
const API_RESOURCE = 'urn:service-desk:api';
/** The scope the web app asks for, besides the OpenID ones, to get an access token for the API. */
export const LOCAL_OIDC_API_SCOPE = 'api';

export interface LocalOpenIdProvider {
  /** The issuer URL (`OIDC_ISSUER`), `http://127.0.0.1:<port>`. */
  readonly issuer: string;
  readonly clientId: string;
  readonly accounts: readonly DevAccount[];
  /** Registers the web app's origin as the client's redirect and post-logout URI. */
  allowApp(appUrl: string): Promise<void>;
  close(): Promise<void>;
}

export interface LocalOpenIdProviderOptions {
  /** @default 0 (a free port) */
  readonly port?: number;
  /** Access token lifetime; short, so expiry and renewal happen while trying the app. @default 600 */
  readonly accessTokenTtlSeconds?: number;
}

/**
 * A certified OpenID provider (`oidc-provider`) on 127.0.0.1 for `AUTH_MODE=oidc npm start` and
 * the sign-in browser test: authorization code + PKCE, refresh tokens, RP-initiated logout, JWT
 * access tokens with the dev users' `roles`. Its sign-in form is oidc-provider's development
 * form: a dev user's login and any password; unknown logins are refused. Local only — keys and
 * cookie secrets are made at each start, so a restart signs everyone out.
 */
export async function startLocalOpenIdProvider(
  options: LocalOpenIdProviderOptions = {},
): Promise<LocalOpenIdProvider> {
  let handle: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  const server = createServer((request, response) => {
    if (handle) return handle(request, response);
    response.writeHead(503).end('The local OpenID provider is starting');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', resolve);
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: 'local-1', alg: 'RS256', use: 'sig' };
  const accessTokenTtl = options.accessTokenTtlSeconds ?? 600;
  // Imported here: oidc-provider is the local workspace's, and only this mode loads it.
  const { Provider } = await import('oidc-provider');
  const accountOf = (login: string) => DEV_ACCOUNTS.find((account) => account.login === login);
  const appOrigins: string[] = [];

  const configure = () => {
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: LOCAL_OIDC_CLIENT_ID,
          client_name: 'Service-desk assistant (local)',
          token_endpoint_auth_method: 'none',
          application_type: 'web',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          redirect_uris: appOrigins.map((origin) => `${origin}/`),
          post_logout_redirect_uris: appOrigins.map((origin) => `${origin}/`),
        },
      ],
      jwks: { keys: [signingKey] },
      cookies: { keys: [randomBytes(32).toString('base64url')] },
      pkce: { required: () => true },
      scopes: ['openid', 'profile', 'email'],
      claims: { openid: ['sub'], profile: ['name'], email: ['email'] },
      // The ID token carries name and e-mail (the web app shows the name without a userinfo call).
      conformIdTokenClaims: false,
      async findAccount(_context: unknown, login: string) {
        const account = accountOf(login);
        if (!account) return undefined;
        return {
          accountId: account.login,
          claims: async () => ({ sub: account.login, name: account.name, email: account.email }),
        };
      },
      features: {
        devInteractions: { enabled: true },
        rpInitiatedLogout: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: async () => API_RESOURCE,
          useGrantedResource: async () => true,
          getResourceServerInfo: async () => ({
            scope: LOCAL_OIDC_API_SCOPE,
            audience: LOCAL_OIDC_CLIENT_ID,
            accessTokenFormat: 'jwt',
            accessTokenTTL: accessTokenTtl,
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
      // The roles claim, as Entra ID's app roles put it in access tokens.
      async extraTokenClaims(_context: unknown, token: { accountId?: string }) {
        const account = token.accountId ? accountOf(token.accountId) : undefined;
        return account ? { roles: [...account.roles], name: account.name } : undefined;
      },
      // A first-party app: no consent screen; the grant covers what the web app asks for.
      async loadExistingGrant(context: {
        oidc: {
          client: { clientId: string };
          session: { accountId: string };
          provider: InstanceType<typeof Provider>;
        };
      }) {
        const grant = new context.oidc.provider.Grant({
          clientId: context.oidc.client.clientId,
          accountId: context.oidc.session.accountId,
        });
        grant.addOIDCScope('openid profile email');
        grant.addOIDCClaims(['name', 'email']);
        grant.addResourceScope(API_RESOURCE, LOCAL_OIDC_API_SCOPE);
        await grant.save();
        return grant;
      },
      // Refresh tokens without `offline_access` (which oidc-provider grants only with a consent
      // prompt): the web app renews silently with them, as it does with Entra ID or Cognito.
      issueRefreshToken: async (
        _context: unknown,
        client: { grantTypeAllowed(type: string): boolean },
      ) => client.grantTypeAllowed('refresh_token'),
      clientBasedCORS: () => true,
      ttl: {
        AccessToken: accessTokenTtl,
        IdToken: accessTokenTtl,
        RefreshToken: 8 * 60 * 60,
        Session: 8 * 60 * 60,
        Grant: 8 * 60 * 60,
        Interaction: 10 * 60,
      },
    });
    handle = provider.callback();
  };
  configure();

  return {
    issuer,
    clientId: LOCAL_OIDC_CLIENT_ID,
    accounts: DEV_ACCOUNTS,
    async allowApp(appUrl) {
      appOrigins.push(new URL(appUrl).origin);
      // The client's redirect URIs are fixed at construction: a new provider for the new list
      // (sessions start over, nobody has signed in yet when the app's URL becomes known).
      configure();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
