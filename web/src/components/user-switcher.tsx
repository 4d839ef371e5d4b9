import { type FormEvent, useId, useState } from 'react';
import { DEV_USER_PRESETS } from '../auth/dev-user-store.js';
import { useI18n } from '../i18n/i18n-context.js';

/**
 * Local mode only: pick the dev identity sent as `x-dev-user`, to try the app as several users.
 * Presets are one click; any name can be typed.
 */
export function UserSwitcher({
  user,
  onChange,
}: {
  user: string;
  onChange: (name: string) => void;
}) {
  const { t } = useI18n();
  const [draft, setDraft] = useState(user);
  const id = useId();
  const listId = useId();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const name = draft.trim();
    if (name && name !== user) onChange(name);
  };
  return (
    <form className="user-switcher" onSubmit={submit}>
      <label htmlFor={id} className="user-switcher__label">
        {t('devUser')}
      </label>
      <input
        id={id}
        className="text-input text-input--compact"
        list={listId}
        value={draft}
        maxLength={64}
        onChange={(event) => setDraft(event.target.value)}
      />
      <datalist id={listId}>
        {DEV_USER_PRESETS.map((preset) => (
          <option key={preset} value={preset} />
        ))}
      </datalist>
      <button type="submit" className="button button--small" disabled={draft.trim() === user}>
        {t('switchUser')}
      </button>
    </form>
  );
}
