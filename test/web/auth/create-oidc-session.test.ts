import { User } from 'oidc-client-ts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOidcSession, signInSettingsOf } from '../../../web/src/auth/create-oidc-session.js';

/**
 * Where the web app keeps its tokens (Cognito's here; any issuer's the same) (docs/deploy.md, "Security review"): the tab's
 * sessionStorage, never localStorage, so the refresh token ends with the tab. The real
 * oidc-client-ts reads and writes two in-memory Storage objects standing in for the browser's.
 */

const cognito = {
  authority: 'https://cognito-idp.ap-northeast-1.amazonaws.com/ap-northeast-1_example',
  clientId: 'webclientid',
  redirectUri: 'https://assist.example.co.jp/',
  logoutUri: 'https://assist.example.co.jp/',
  domain: 'https://assist-example.auth.ap-northeast-1.amazoncognito.com',
};
const config = signInSettingsOf({ apiBase: '/api', authMode: 'cognito', cognito });
if (!config) throw new Error('expected sign-in settings');
const userKey = `oidc.user:${cognito.authority}:${cognito.clientId}`;

function memoryStorage(): Storage {
  const entries = new Map<string, string>();
  return {
    getItem: (key) => entries.get(key) ?? null,
    setItem: (key, value) => void entries.set(key, value),
    removeItem: (key) => void entries.delete(key),
    clear: () => entries.clear(),
    key: (index) => [...entries.keys()][index] ?? null,
    get length() {
      return entries.size;
    },
  };
}

function signedInUser(): string {
  return new User({
    access_token: 'access-token-of-the-tab',
    token_type: 'Bearer',
    refresh_token: 'refresh-token-of-the-tab',
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    profile: {
      sub: 'staff-sub',
      email: 'alice@example.co.jp',
      iss: cognito.authority,
      aud: cognito.clientId,
      exp: 0,
      iat: 0,
    },
  }).toStorageString();
}

describe('createOidcSession token storage', () => {
  let sessionStorage: Storage;
  let localStorage: Storage;

  beforeEach(() => {
    sessionStorage = memoryStorage();
    localStorage = memoryStorage();
    vi.stubGlobal('window', {
      sessionStorage,
      localStorage,
      location: { search: '', pathname: '/', assign: vi.fn() },
      history: { replaceState: vi.fn() },
    });
  });

  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('signs in from the tokens in the tab’s sessionStorage', async () => {
    sessionStorage.setItem(userKey, signedInUser());
    const result = await createOidcSession(config);
    if (!result.session) throw new Error('expected a signed-in session');
    expect(await result.session.headers()).toEqual({ 'x-auth-token': 'access-token-of-the-tab' });
    expect(result.session.displayName).toBe('alice@example.co.jp');
  });

  it('ignores tokens in localStorage: a device-wide copy never signs a tab in', async () => {
    localStorage.setItem(userKey, signedInUser());
    const result = await createOidcSession(config);
    expect(result.session).toBeUndefined();
    expect(result).toHaveProperty('signIn');
  });

  it('removes the tokens from sessionStorage on sign-out, leaving localStorage untouched', async () => {
    sessionStorage.setItem(userKey, signedInUser());
    const result = await createOidcSession(config);
    await result.session?.signOut();
    expect(sessionStorage.getItem(userKey)).toBeNull();
    expect(localStorage.length).toBe(0);
  });
});
