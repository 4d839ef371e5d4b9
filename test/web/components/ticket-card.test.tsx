import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { TicketCard } from '../../../web/src/components/ticket-card.js';

const card = (issue_id: string) => ({ issue_id, subject: 'VPN', summary: 's', resolution: 'r' });

describe('TicketCard', () => {
  it.each([
    ['1001', 'チケット #1001'],
    ['INC0012345', 'チケット INC0012345'],
    ['ITSD-123', 'チケット ITSD-123'],
    ['ZD#35436', 'チケット #35436'],
  ])('shows ticket %s as staff write it: %s', (issueId, shown) => {
    const html = renderToStaticMarkup(<TicketCard ticket={card(issueId)} />);
    expect(html).toContain(`<span class="ticket-card__id">${shown}</span>`);
    expect(html).toContain(`data-issue-id="${issueId}"`);
  });
});
