import { describeError } from '../errors/describe-error.js';
import { useI18n } from '../i18n/i18n-context.js';
import type { AssistantBubble } from '../state/bubble.js';

interface StatusNoticeProps {
  readonly bubble: AssistantBubble;
  /** Present when a retry makes sense: the latest answer, its message known, nothing streaming. */
  readonly onRetry?: () => void;
}

/** Says plainly when an answer is not complete, and offers to try again where that helps. */
export function StatusNotice({ bubble, onRetry }: StatusNoticeProps) {
  const { t, locale } = useI18n();
  const { status, error } = bubble;
  if (status === 'streaming' || status === 'complete') return null;
  const headline =
    status === 'truncated'
      ? t('statusTruncated')
      : status === 'stopped'
        ? t('statusStopped')
        : t('statusFailed');
  const detail = status === 'failed' && error ? describeError(error, locale) : undefined;
  return (
    <div
      className={`status-notice status-notice--${status}`}
      role={status === 'failed' ? 'alert' : 'status'}
    >
      <p>
        {headline}
        {detail && <> {detail}</>}
      </p>
      {onRetry && (
        <button type="button" className="button button--small" onClick={onRetry}>
          {t('retry')}
        </button>
      )}
    </div>
  );
}
