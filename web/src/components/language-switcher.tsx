import { useId } from 'react';
import { useI18n } from '../i18n/i18n-context.js';
import type { Locale } from '../i18n/messages.js';

/** 日本語 / English, each label in its own language so anyone can find theirs. */
export function LanguageSwitcher({ onChange }: { onChange: (locale: Locale) => void }) {
  const { t, locale } = useI18n();
  const id = useId();
  return (
    <div className="language-switcher">
      <label htmlFor={id} className="visually-hidden">
        {t('language')}
      </label>
      <select
        id={id}
        className="select"
        value={locale}
        onChange={(event) => onChange(event.target.value === 'en' ? 'en' : 'ja')}
      >
        <option value="ja" lang="ja">
          日本語
        </option>
        <option value="en" lang="en">
          English
        </option>
      </select>
    </div>
  );
}
