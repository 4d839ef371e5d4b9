import { memo } from 'react';
import type { TicketResult } from '../../../functions/contract/answer.js';
import { useI18n } from '../i18n/i18n-context.js';
import { TicketCard } from './ticket-card.js';

/** The similar tickets, appearing one by one as `ticket` events arrive. */
export const TicketCards = memo(function TicketCards({
  tickets,
}: {
  tickets: readonly TicketResult[];
}) {
  const { t } = useI18n();
  if (tickets.length === 0) return null;
  return (
    <section className="ticket-cards" aria-label={t('similarTickets')}>
      <h3 className="section-title">{t('similarTickets')}</h3>
      <ul className="ticket-cards__list">
        {tickets.map((ticket) => (
          <TicketCard key={ticket.issue_id} ticket={ticket} />
        ))}
      </ul>
    </section>
  );
});
