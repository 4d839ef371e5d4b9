import { describe, expect, it } from 'vitest';
import { createI18n } from '../../../web/src/i18n/i18n-context.js';
import { en, ja } from '../../../web/src/i18n/messages.js';
import { pickLocale } from '../../../web/src/i18n/pick-locale.js';

describe('pickLocale', () => {
  it('prefers the stored choice over the browser languages', () => {
    expect(pickLocale('en', ['ja-JP'])).toBe('en');
  });

  it('takes the first supported browser language', () => {
    expect(pickLocale(null, ['fr-FR', 'en-US', 'ja'])).toBe('en');
    expect(pickLocale(null, ['ja-JP', 'en-US'])).toBe('ja');
  });

  it('falls back to Japanese', () => {
    expect(pickLocale('de', ['de-DE'])).toBe('ja');
  });
});

describe('createI18n', () => {
  it('fills placeholders', () => {
    expect(createI18n('ja').t('kbDetails', { count: 3 })).toBe('検索クエリと参照チケット（3 件）');
    expect(createI18n('en').t('ticket', { id: '#1234' })).toBe('Ticket #1234');
  });

  it('formats dates in the chosen language', () => {
    const iso = '2026-11-30T12:00:00Z';
    expect(createI18n('ja').formatDateTime(iso)).toMatch(/2026\/11\/30/);
    expect(createI18n('en').formatDateTime(iso)).toMatch(/Nov 30, 2026/);
    expect(createI18n('en').formatDateTime('not a date')).toBe('');
  });

  it('has an English string for every Japanese one', () => {
    expect(Object.keys(en).sort()).toEqual(Object.keys(ja).sort());
  });
});
