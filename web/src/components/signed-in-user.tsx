import { useI18n } from '../i18n/i18n-context.js';

/** Cognito mode: who is signed in, and the way out. */
export function SignedInUser({ name, onSignOut }: { name: string; onSignOut: () => void }) {
  const { t } = useI18n();
  return (
    <div className="signed-in-user">
      <span className="signed-in-user__name">{name}</span>
      <button type="button" className="button button--small" onClick={onSignOut}>
        {t('signOut')}
      </button>
    </div>
  );
}
