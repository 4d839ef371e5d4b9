import { useI18n } from '../i18n/i18n-context.js';

/** Cognito mode before sign-in: one button that starts the PKCE redirect. */
export function SignInScreen({ onSignIn }: { onSignIn: () => void }) {
  const { t } = useI18n();
  return (
    <main className="sign-in">
      <h1>{t('appTitle')}</h1>
      <p>{t('signInPrompt')}</p>
      <button type="button" className="button button--primary" onClick={onSignIn}>
        {t('signIn')}
      </button>
    </main>
  );
}
