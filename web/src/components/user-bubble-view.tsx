import { memo } from 'react';
import { useI18n } from '../i18n/i18n-context.js';
import type { UserBubble } from '../state/bubble.js';

/** What the staff member asked. Plain text, line breaks kept. */
export const UserBubbleView = memo(function UserBubbleView({ bubble }: { bubble: UserBubble }) {
  const { t } = useI18n();
  return (
    <li className="bubble bubble--user">
      <span className="visually-hidden">{t('you')}: </span>
      <p className="bubble__text">{bubble.text}</p>
    </li>
  );
});
