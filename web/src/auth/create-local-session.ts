import type { AuthSession } from './auth-session.js';

/** Local stack only (`AUTH_MODE=local`): the server trusts `x-dev-user`, never in AWS. */
export function createLocalSession(devUser: string): AuthSession {
  return {
    mode: 'local',
    displayName: devUser,
    headers: async () => ({ 'x-dev-user': devUser }),
    signOut: async () => {},
  };
}
