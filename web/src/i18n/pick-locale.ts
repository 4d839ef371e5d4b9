import type { Locale } from './messages.js';

const KEY = 'sda.locale';

/**
 * The UI language: the user's explicit choice if stored, else the first browser language we
 * support, else Japanese (most staff).
 */
export function pickLocale(stored: string | null, browserLanguages: readonly string[]): Locale {
  if (stored === 'ja' || stored === 'en') return stored;
  for (const language of browserLanguages) {
    const base = language.toLowerCase().split('-')[0];
    if (base === 'ja' || base === 'en') return base;
  }
  return 'ja';
}

export function readStoredLocale(): string | null {
  try {
    return localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function storeLocale(locale: Locale): void {
  try {
    localStorage.setItem(KEY, locale);
  } catch {
    // Not persisted; the choice still applies to this tab.
  }
}
