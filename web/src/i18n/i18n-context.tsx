import { createContext, useContext } from 'react';
import { type Locale, type MessageKey, messages } from './messages.js';

/** Translation and formatting for the chosen locale, provided once at the app root. */
export interface I18n {
  readonly locale: Locale;
  t(key: MessageKey, params?: Record<string, string | number>): string;
  /** Date and time in the user's language, e.g. 2026/11/30 11:20 or Nov 30, 2026, 11:20 AM. */
  formatDateTime(iso: string): string;
}

export function createI18n(locale: Locale): I18n {
  const dictionary = messages[locale];
  const dateTime = new Intl.DateTimeFormat(locale === 'ja' ? 'ja-JP' : 'en', {
    dateStyle: 'medium',
    timeStyle: 'short',
  });
  return {
    locale,
    t: (key, params) =>
      dictionary[key].replace(/\{(\w+)\}/g, (match, name: string) =>
        params && name in params ? String(params[name]) : match,
      ),
    formatDateTime: (iso) => {
      const date = new Date(iso);
      return Number.isNaN(date.getTime()) ? '' : dateTime.format(date);
    },
  };
}

export const I18nContext = createContext<I18n>(createI18n('ja'));

export function useI18n(): I18n {
  return useContext(I18nContext);
}
