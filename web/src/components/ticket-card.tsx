import { memo, type ReactNode } from 'react';
import type { TicketResult } from '../../../functions/contract/answer.js';
import { formatIssueId } from '../../../functions/contract/ticket-references.js';
import { useI18n } from '../i18n/i18n-context.js';

/** One similar past ticket. Plain text only: ticket fields never go through the HTML path. */
export const TicketCard = memo(function TicketCard({
  ticket,
  action,
}: {
  ticket: TicketResult;
  /** A control for this card (e.g. "this solved it"), shown in its footer. */
  action?: ReactNode;
}) {
  const { t } = useI18n();
  return (
    // The wrapper animates its height open, so text below slides instead of jumping.
    <li className="ticket-card-reveal">
      <article className="ticket-card" data-issue-id={ticket.issue_id}>
        <header className="ticket-card__header">
          <span className="ticket-card__id">
            {t('ticket', { id: formatIssueId(ticket.issue_id) })}
          </span>
          <h4 className="ticket-card__subject">{ticket.subject}</h4>
        </header>
        <p className="ticket-card__summary">{ticket.summary}</p>
        {ticket.resolution && (
          <p className="ticket-card__resolution">
            <strong>{t('resolution')}: </strong>
            {ticket.resolution}
          </p>
        )}
        {action && <footer className="ticket-card__footer">{action}</footer>}
      </article>
    </li>
  );
});
