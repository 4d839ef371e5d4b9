/** localStorage key of the local-mode identity. */
const KEY = 'sda.devUser';
export const DEFAULT_DEV_USER = 'local-user';
/** Quick picks in the user switcher; any other name can be typed. */
export const DEV_USER_PRESETS = ['local-user', 'tanaka', 'suzuki'] as const;

/** The dev identity sent as `x-dev-user` in local mode; survives reloads. */
export function readDevUser(): string {
  try {
    return localStorage.getItem(KEY)?.trim() || DEFAULT_DEV_USER;
  } catch {
    return DEFAULT_DEV_USER; // storage blocked (privacy mode): fall back rather than crash
  }
}

export function writeDevUser(name: string): void {
  try {
    localStorage.setItem(KEY, name.trim() || DEFAULT_DEV_USER);
  } catch {
    // Not persisted; the session still switches for this tab.
  }
}
