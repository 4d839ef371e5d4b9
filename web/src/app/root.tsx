import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import type { AuthSession } from '../auth/auth-session.js';
import { createLocalSession } from '../auth/create-local-session.js';
import { createOidcSession, signInSettingsOf } from '../auth/create-oidc-session.js';
import { readDevUser, writeDevUser } from '../auth/dev-user-store.js';
import { SignInScreen } from '../components/sign-in-screen.js';
import { SignedInUser } from '../components/signed-in-user.js';
import { UserSwitcher } from '../components/user-switcher.js';
import { loadRuntimeConfig, type RuntimeConfig } from '../config/load-runtime-config.js';
import { createI18n, I18nContext, useI18n } from '../i18n/i18n-context.js';
import type { Locale } from '../i18n/messages.js';
import { pickLocale, readStoredLocale, storeLocale } from '../i18n/pick-locale.js';
import { appPageOf } from './app-page.js';
import { ChatApp } from './chat-app.js';
import { writeConversationToUrl } from './url-conversation.js';

// The leads' page is its own chunk: the chat's first load carries none of its code (issue #28).
// A chunk that fails to load (offline, or a deploy replaced it) says so instead of a blank page.
const InsightsApp = lazy(() =>
  import('../insights/insights-app.js').catch((error: unknown) => {
    console.error(error);
    return { default: InsightsLoadFailed };
  }),
);

function InsightsLoadFailed() {
  const { t } = useI18n();
  return (
    <p className="boot-message" role="alert">
      {t('loadFailed')}
    </p>
  );
}

type Phase =
  | { readonly name: 'loading' }
  | { readonly name: 'failed'; readonly error: unknown }
  | { readonly name: 'signed-out'; readonly signIn: () => Promise<void> }
  | { readonly name: 'ready'; readonly config: RuntimeConfig; readonly session: AuthSession };

/**
 * Boots the app: runtime config, language, identity; then the page the address names for that
 * identity — the chat, or the leads' insights.
 */
export function Root() {
  const [page] = useState(() => appPageOf(window.location.pathname));
  const [locale, setLocale] = useState<Locale>(() =>
    pickLocale(readStoredLocale(), navigator.languages),
  );
  const i18n = useMemo(() => createI18n(locale), [locale]);
  const [phase, setPhase] = useState<Phase>({ name: 'loading' });

  useEffect(() => {
    document.documentElement.lang = locale;
    // The insights page names the tab itself (its strings travel with its chunk).
    if (page === 'chat') document.title = i18n.t('appTitle');
  }, [locale, i18n, page]);

  useEffect(() => {
    void (async () => {
      try {
        const config = await loadRuntimeConfig();
        const signIn = signInSettingsOf(config);
        if (!signIn) {
          setPhase({ name: 'ready', config, session: createLocalSession(readDevUser()) });
          return;
        }
        const result = await createOidcSession(signIn);
        setPhase(
          result.session
            ? { name: 'ready', config, session: result.session }
            : { name: 'signed-out', signIn: result.signIn },
        );
      } catch (error) {
        console.error(error);
        setPhase({ name: 'failed', error });
      }
    })();
  }, []);

  const changeLocale = (next: Locale) => {
    storeLocale(next);
    setLocale(next);
  };

  const switchDevUser = (name: string) => {
    if (phase.name !== 'ready') return;
    writeDevUser(name);
    // The open conversation belongs to the previous user; the new one would only get a 404.
    writeConversationToUrl(undefined, 'replace');
    setPhase({ ...phase, session: createLocalSession(name) });
  };

  const identityOf = (session: AuthSession) =>
    session.mode === 'local' ? (
      <UserSwitcher user={session.displayName} onChange={switchDevUser} />
    ) : (
      <SignedInUser name={session.displayName} onSignOut={() => void session.signOut()} />
    );

  return (
    <I18nContext.Provider value={i18n}>
      {phase.name === 'loading' && <p className="boot-message">{i18n.t('loading')}</p>}
      {phase.name === 'failed' && (
        <p className="boot-message" role="alert">
          {i18n.t('loadFailed')}
        </p>
      )}
      {phase.name === 'signed-out' && <SignInScreen onSignIn={() => void phase.signIn()} />}
      {phase.name === 'ready' && page === 'insights' && (
        <Suspense fallback={<p className="boot-message">{i18n.t('loading')}</p>}>
          <InsightsApp
            key={`${phase.session.mode}:${phase.session.displayName}`}
            apiBase={phase.config.apiBase}
            session={phase.session}
            onLocaleChange={changeLocale}
            identity={identityOf(phase.session)}
          />
        </Suspense>
      )}
      {phase.name === 'ready' && page === 'chat' && (
        <ChatApp
          // A new identity gets a fresh app: no state of the previous user survives.
          key={`${phase.session.mode}:${phase.session.displayName}`}
          apiBase={phase.config.apiBase}
          session={phase.session}
          onLocaleChange={changeLocale}
          identity={identityOf(phase.session)}
        />
      )}
    </I18nContext.Provider>
  );
}
