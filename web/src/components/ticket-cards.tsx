import { memo } from 'react';
import type { TicketResult } from '../../../functions/contract/answer.js';
import { useI18n } from '../i18n/i18n-context.js';
import { type AnswerFeedbackState, SolvedToggle } from './answer-feedback.js';
import { TicketCard } from './ticket-card.js';

/**
 * The similar tickets, appearing one by one as `ticket` events arrive; once the answer is stored,
 * each card can be marked "this solved it" (`feedback`).
 */
export const TicketCards = memo(function TicketCards({
  tickets,
  feedback,
}: {
  tickets: readonly TicketResult[];
  feedback?: AnswerFeedbackState;
}) {
  const { t } = useI18n();
  if (tickets.length === 0) return null;
  return (
    <section className="ticket-cards" aria-label={t('similarTickets')}>
      <h3 className="section-title">{t('similarTickets')}</h3>
      <ul className="ticket-cards__list">
        {tickets.map((ticket) => (
          <TicketCard
            key={ticket.issue_id}
            ticket={ticket}
            action={feedback && <SolvedToggle issueId={ticket.issue_id} state={feedback} />}
          />
        ))}
      </ul>
    </section>
  );
});
