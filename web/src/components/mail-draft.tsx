import { useState } from 'react';
import { useI18n } from '../i18n/i18n-context.js';
import type { ReferenceMarks } from '../markdown/render-markdown.js';
import {
  splitUnverifiedReferences,
  UNVERIFIED_REFERENCE_CLASS,
} from '../markdown/unverified-references.js';

/**
 * The e-mail draft to the requester, as plain text with a copy button. Unverified ticket
 * references are marked on screen; the copied text is the draft as written.
 */
export function MailDraft({ draft, marks }: { draft: string; marks?: ReferenceMarks }) {
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
      <pre className="mail-draft__body">
        {marks
          ? splitUnverifiedReferences(draft, marks.unverified).map((segment, index) =>
              segment.unverified ? (
                // biome-ignore lint/suspicious/noArrayIndexKey: segments of a fixed text
                <span key={index} className={UNVERIFIED_REFERENCE_CLASS} title={marks.title}>
                  {segment.text}
                </span>
              ) : (
                segment.text
              ),
            )
          : draft}
      </pre>
      <span className="visually-hidden" aria-live="polite">
        {copied ? t('copied') : ''}
      </span>
    </section>
  );
}
