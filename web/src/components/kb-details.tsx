import type { KbChunk } from '../../../functions/contract/chat-events.js';
import { formatIssueId } from '../../../functions/contract/ticket-references.js';
import { useI18n } from '../i18n/i18n-context.js';

/**
 * The exact search query and the retrieved tickets, collapsed by default: useful to check why an
 * answer cites what it cites, noise for everyone else.
 */
export function KbDetails({ query, chunks }: { query?: string; chunks?: readonly KbChunk[] }) {
  const { t } = useI18n();
  if (query === undefined && chunks === undefined) return null;
  return (
    <details className="kb-details">
      <summary>{t('kbDetails', { count: chunks?.length ?? 0 })}</summary>
      {query !== undefined && (
        <p className="kb-details__query">
          <span className="kb-details__label">{t('kbQuery')}: </span>
          <q>{query}</q>
        </p>
      )}
      {chunks && chunks.length > 0 && (
        <ul className="kb-details__chunks">
          {chunks.map((chunk) => (
            <li key={chunk.issue_id}>
              <span className="kb-details__id">{formatIssueId(chunk.issue_id)}</span>{' '}
              {chunk.subject} <span className="kb-details__score">({chunk.score.toFixed(2)})</span>
              <p className="kb-details__preview">{chunk.preview}</p>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
