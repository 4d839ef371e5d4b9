import { useI18n } from '../i18n/i18n-context.js';

/** Marks where a new inquiry starts: earlier tickets and advice belong to the one above. */
export function InquiryBoundary() {
  const { t } = useI18n();
  return (
    <li className="inquiry-boundary">
      <span>{t('newInquiry')}</span>
    </li>
  );
}
