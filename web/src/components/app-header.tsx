import type { ReactNode } from 'react';
import { INSIGHTS_PATH } from '../app/app-page.js';
import { useI18n } from '../i18n/i18n-context.js';
import type { Locale } from '../i18n/messages.js';
import { LanguageSwitcher } from './language-switcher.js';

interface AppHeaderProps {
  readonly sidebarOpen: boolean;
  readonly onToggleSidebar: () => void;
  readonly onLocaleChange: (locale: Locale) => void;
  /** The identity control: the dev-user switcher or the signed-in name with sign-out. */
  readonly identity: ReactNode;
  /** A service-desk lead: the header links to the insights page. @default false */
  readonly canViewInsights?: boolean;
}

/**
 * Title bar: the drawer toggle on narrow screens; the insights link for leads, language and
 * identity on the right.
 */
export function AppHeader({
  sidebarOpen,
  onToggleSidebar,
  onLocaleChange,
  identity,
  canViewInsights = false,
}: AppHeaderProps) {
  const { t } = useI18n();
  return (
    <header className="app-header">
      <button
        type="button"
        className="button button--ghost app-header__menu"
        aria-expanded={sidebarOpen}
        onClick={onToggleSidebar}
      >
        {sidebarOpen ? t('close') : t('menu')}
      </button>
      <h1 className="app-header__title">{t('appTitle')}</h1>
      <div className="app-header__tools">
        {canViewInsights && (
          <a className="button button--ghost" href={INSIGHTS_PATH}>
            {t('insightsLink')}
          </a>
        )}
        <LanguageSwitcher onChange={onLocaleChange} />
        {identity}
      </div>
    </header>
  );
}
