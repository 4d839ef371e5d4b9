import type { RuntimeConfig } from '../config/load-runtime-config.js';
import type { AuthSession } from './auth-session.js';

/** Where and how the web app signs in: the stack's Cognito pool or any OpenID Connect issuer. */
export interface OidcSignIn {
  readonly authority: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly logoutUri: string;
  /** What to ask for; an external issuer needs its API scope here (`api://…/access`). */
  readonly scope: string;
  /** Added to the authorization request (`identity_provider` sends Cognito straight to SAML). */
  readonly extraQueryParams?: Readonly<Record<string, string>>;
  /** Cognito's hosted UI domain: Cognito signs out at `/logout`, not at an end-session endpoint. */
  readonly cognitoDomain?: string;
}

/**
 * The sign-in settings of `/config.json`: its `oidc` section, or the `cognito` section of a stack
 * that deploys its own pool; undefined in local mode.
 */
export function signInSettingsOf(config: RuntimeConfig): OidcSignIn | undefined {
  if (config.authMode === 'oidc') return config.oidc;
  if (config.authMode === 'cognito' && config.cognito) {
    const { domain, ...cognito } = config.cognito;
    return { scope: 'openid email profile', ...cognito, cognitoDomain: domain };
  }
  return undefined;
}

/** Signed in, or a way to start the PKCE redirect from a sign-in screen. */
export type OidcSessionResult =
  | { readonly session: AuthSession }
  | { readonly session?: undefined; signIn(): Promise<void> };

async function createManager(settings: OidcSignIn) {
  // Dynamic import: local mode never downloads oidc-client-ts in its first-load bundle.
  const { UserManager, WebStorageStateStore } = await import('oidc-client-ts');
  return new UserManager({
    authority: settings.authority,
    client_id: settings.clientId,
    redirect_uri: settings.redirectUri,
    post_logout_redirect_uri: settings.logoutUri,
    response_type: 'code',
    scope: settings.scope,
    ...(settings.extraQueryParams && { extraQueryParams: { ...settings.extraQueryParams } }),
    // The tab's sessionStorage: tokens (the refresh token included) end with the tab instead of
    // staying on the device, and no other tab's script shares them. A new tab signs in again
    // through the issuer's session cookie, without a password while it lasts.
    userStore: new WebStorageStateStore({ store: window.sessionStorage }),
    // Renews with the refresh token before the access token expires; the issuer decides how long
    // refreshing works (offboarding: docs/deploy.md).
    automaticSilentRenew: true,
  });
}

/**
 * Sign-in with authorization code + PKCE (oidc-client-ts) at the configured issuer. Completes a
 * redirect back from the issuer when the URL carries `code` and `state`.
 * The ACCESS token goes in `x-auth-token`: CloudFront OAC overwrites `Authorization`.
 */
export async function createOidcSession(settings: OidcSignIn): Promise<OidcSessionResult> {
  const manager = await createManager(settings);

  const params = new URLSearchParams(window.location.search);
  if (params.has('code') && params.has('state')) {
    await manager.signinRedirectCallback();
    // Drop code/state from the address bar so a reload does not replay them.
    params.delete('code');
    params.delete('state');
    params.delete('iss');
    params.delete('session_state');
    const query = params.toString();
    window.history.replaceState(null, '', `${window.location.pathname}${query ? `?${query}` : ''}`);
  }

  let user = await manager.getUser();
  if (user?.expired) {
    // Only a refresh token renews without a visible redirect; anything else needs sign-in.
    user = user.refresh_token ? await manager.signinSilent().catch(() => null) : null;
  }
  if (!user) return { signIn: () => manager.signinRedirect() };
  const signedIn = user;

  const profile = signedIn.profile;
  const session: AuthSession = {
    mode: settings.cognitoDomain ? 'cognito' : 'oidc',
    displayName: String(
      profile.name ?? profile.email ?? profile['cognito:username'] ?? profile.sub,
    ),
    async headers() {
      const current = (await manager.getUser()) ?? signedIn;
      return { 'x-auth-token': current.access_token };
    },
    async signOut() {
      if (settings.cognitoDomain) {
        await manager.removeUser();
        // Cognito's hosted UI ends its session at /logout with client_id + logout_uri.
        const logout = new URL('/logout', settings.cognitoDomain);
        logout.searchParams.set('client_id', settings.clientId);
        logout.searchParams.set('logout_uri', settings.logoutUri);
        window.location.assign(logout.toString());
        return;
      }
      // The issuer's end-session endpoint (with the ID token as hint) ends its session too, so
      // the next sign-in asks for credentials again; the tab's tokens are removed first.
      const idTokenHint = (await manager.getUser())?.id_token;
      await manager.removeUser();
      await manager.signoutRedirect(idTokenHint ? { id_token_hint: idTokenHint } : {});
    },
  };
  return { session };
}
