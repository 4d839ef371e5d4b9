import { useState } from 'react';
import { useI18n } from '../i18n/i18n-context.js';

/** The e-mail draft to the requester, as plain text with a copy button. */
export function MailDraft({ draft }: { draft: string }) {
  const { t } = useI18n();
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(draft);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch {
      // Clipboard blocked (http, permissions): the text stays selectable by hand.
      setCopied(false);
    }
  };
  return (
    <section className="mail-draft">
      <div className="mail-draft__header">
        <h3 className="section-title">{t('mailDraft')}</h3>
        <button type="button" className="button button--small" onClick={copy}>
          {copied ? t('copied') : t('copy')}
        </button>
      </div>
      <pre className="mail-draft__body">{draft}</pre>
      <span className="visually-hidden" aria-live="polite">
        {copied ? t('copied') : ''}
      </span>
    </section>
  );
}
