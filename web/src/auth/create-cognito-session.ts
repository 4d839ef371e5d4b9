import type { RuntimeConfig } from '../config/load-runtime-config.js';
import type { AuthSession } from './auth-session.js';

type CognitoConfig = NonNullable<RuntimeConfig['cognito']>;

/** Signed in, or a way to start the PKCE redirect from a sign-in screen. */
export type CognitoSessionResult =
  | { readonly session: AuthSession }
  | { readonly session?: undefined; signIn(): Promise<void> };

async function createManager(config: CognitoConfig) {
  // Dynamic import: local mode never downloads oidc-client-ts in its first-load bundle.
  const { UserManager, WebStorageStateStore } = await import('oidc-client-ts');
  return new UserManager({
    authority: config.authority,
    client_id: config.clientId,
    redirect_uri: config.redirectUri,
    post_logout_redirect_uri: config.logoutUri,
    response_type: 'code',
    scope: 'openid email profile',
    // The tab's sessionStorage: tokens (the 12-hour refresh token included) end with the tab
    // instead of staying on the device, and no other tab's script shares them. A new tab signs
    // in again through the hosted UI's session cookie, without a password while it lasts.
    userStore: new WebStorageStateStore({ store: window.sessionStorage }),
    automaticSilentRenew: true,
  });
}

/**
 * Cognito sign-in with authorization code + PKCE (oidc-client-ts). Completes a redirect back
 * from the hosted UI when the URL carries `code` and `state`.
 * The ACCESS token goes in `x-auth-token`: CloudFront OAC overwrites `Authorization`.
 */
export async function createCognitoSession(config: CognitoConfig): Promise<CognitoSessionResult> {
  const manager = await createManager(config);

  const params = new URLSearchParams(window.location.search);
  if (params.has('code') && params.has('state')) {
    await manager.signinRedirectCallback();
    // Drop code/state from the address bar so a reload does not replay them.
    params.delete('code');
    params.delete('state');
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
    mode: 'cognito',
    displayName: String(profile.email ?? profile['cognito:username'] ?? profile.sub),
    async headers() {
      const current = (await manager.getUser()) ?? signedIn;
      return { 'x-auth-token': current.access_token };
    },
    async signOut() {
      await manager.removeUser();
      // Cognito's hosted UI ends its session at /logout with client_id + logout_uri.
      const logout = new URL('/logout', config.domain);
      logout.searchParams.set('client_id', config.clientId);
      logout.searchParams.set('logout_uri', config.logoutUri);
      window.location.assign(logout.toString());
    },
  };
  return { session };
}
