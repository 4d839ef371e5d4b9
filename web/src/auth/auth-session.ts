/**
 * Who is calling the API, whatever the auth mode. Local mode names a dev user; Cognito and
 * OIDC modes hold tokens. Components only see this interface, so sign-in code stays lazily loaded.
 */
export interface AuthSession {
  readonly mode: 'local' | 'cognito' | 'oidc';
  /** Shown in the header: the dev user name or the signed-in e-mail/username. */
  readonly displayName: string;
  /** Identity headers for one API request (fresh token each time). */
  headers(): Promise<Record<string, string>>;
  signOut(): Promise<void>;
}
