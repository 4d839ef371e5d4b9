import { useI18n } from '../i18n/i18n-context.js';
import type { MessageKey } from '../i18n/messages.js';
import { UNVERIFIED_LINK_CLASS } from '../markdown/unverified-links.js';

/**
 * The one way the page says which links the server removed or flagged in a text (ADR 0013): a
 * notice under the text, in the same words wherever it is (answer, mail draft version, hand-off
 * summary), listing each link as written — inert text marked as the advice marks an unverified
 * link, never an anchor.
 */
export function UnverifiedLinksNotice({
  links,
  message,
}: {
  readonly links: readonly string[];
  /** What happened to the links in this place (removed from the draft, from the summary …). */
  readonly message: MessageKey;
}) {
  const { t } = useI18n();
  if (links.length === 0) return null;
  return (
    <div className="status-notice status-notice--info unverified-links-notice">
      <p>{t(message)}</p>
      <ul className="unverified-links-notice__list" aria-label={t('unverifiedLinksList')}>
        {links.map((link) => (
          <li key={link}>
            <span className={UNVERIFIED_LINK_CLASS} title={t('unverifiedLink')}>
              {link}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
