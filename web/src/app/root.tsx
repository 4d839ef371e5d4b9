import { useEffect, useMemo, useState } from 'react';
import type { AuthSession } from '../auth/auth-session.js';
import { createLocalSession } from '../auth/create-local-session.js';
import { readDevUser, writeDevUser } from '../auth/dev-user-store.js';
import { SignInScreen } from '../components/sign-in-screen.js';
import { SignedInUser } from '../components/signed-in-user.js';
import { UserSwitcher } from '../components/user-switcher.js';
import { loadRuntimeConfig, type RuntimeConfig } from '../config/load-runtime-config.js';
import { createI18n, I18nContext } from '../i18n/i18n-context.js';
import type { Locale } from '../i18n/messages.js';
import { pickLocale, readStoredLocale, storeLocale } from '../i18n/pick-locale.js';
import { ChatApp } from './chat-app.js';
import { writeConversationToUrl } from './url-conversation.js';

type Phase =
  | { readonly name: 'loading' }
  | { readonly name: 'failed'; readonly error: unknown }
  | { readonly name: 'signed-out'; readonly signIn: () => Promise<void> }
  | { readonly name: 'ready'; readonly config: RuntimeConfig; readonly session: AuthSession };

/** Boots the app: runtime config, language, identity; then the chat app for that identity. */
export function Root() {
  const [locale, setLocale] = useState<Locale>(() =>
    pickLocale(readStoredLocale(), navigator.languages),
  );
  const i18n = useMemo(() => createI18n(locale), [locale]);
  const [phase, setPhase] = useState<Phase>({ name: 'loading' });

  useEffect(() => {
    document.documentElement.lang = locale;
    document.title = i18n.t('appTitle');
  }, [locale, i18n]);

  useEffect(() => {
    void (async () => {
      try {
        const config = await loadRuntimeConfig();
        if (config.authMode === 'local' || !config.cognito) {
          setPhase({ name: 'ready', config, session: createLocalSession(readDevUser()) });
          return;
        }
        const { createCognitoSession } = await import('../auth/create-cognito-session.js');
        const result = await createCognitoSession(config.cognito);
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

  return (
    <I18nContext.Provider value={i18n}>
      {phase.name === 'loading' && <p className="boot-message">{i18n.t('loading')}</p>}
      {phase.name === 'failed' && (
        <p className="boot-message" role="alert">
          {i18n.t('loadFailed')}
        </p>
      )}
      {phase.name === 'signed-out' && <SignInScreen onSignIn={() => void phase.signIn()} />}
      {phase.name === 'ready' && (
        <ChatApp
          // A new identity gets a fresh app: no state of the previous user survives.
          key={`${phase.session.mode}:${phase.session.displayName}`}
          apiBase={phase.config.apiBase}
          session={phase.session}
          onLocaleChange={changeLocale}
          identity={
            phase.session.mode === 'local' ? (
              <UserSwitcher user={phase.session.displayName} onChange={switchDevUser} />
            ) : (
              <SignedInUser
                name={phase.session.displayName}
                onSignOut={() => void phase.session.signOut()}
              />
            )
          }
        />
      )}
    </I18nContext.Provider>
  );
}
