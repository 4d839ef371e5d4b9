import { describe, expect, it } from 'vitest';
import { feedbackRequestSchema } from '../../functions/contract/conversations.js';

/**
 * Which ticket numbers "this solved it" accepts: every canonical form a card carries (ADR 0020), so
 * an imported ServiceNow, Jira or Zendesk ticket can be marked as the solution like a sample one;
 * whether the answer cites it is the route's check (test/api/answer-feedback.test.ts).
 */
describe('helpfulTicketIds', () => {
  const accepts = (ids: string[]) =>
    feedbackRequestSchema.safeParse({ rating: 'up', helpfulTicketIds: ids }).success;

  it('accepts the canonical number of every source', () => {
    expect(accepts(['1001'])).toBe(true);
    expect(accepts(['INC0012345', 'RITM0012345'])).toBe(true);
    expect(accepts(['ITSD-123'])).toBe(true);
    expect(accepts(['ZD#35436'])).toBe(true);
  });

  it('refuses a number written as staff type it rather than as the card carries it', () => {
    for (const written of [
      '#12',
      'inc0012345',
      'ITSD-0123',
      '0012',
      'ＩＴＳＤ－１２３',
      '',
      'ZD#0',
    ]) {
      expect(accepts([written]), written).toBe(false);
    }
  });

  it('refuses a repeated ticket', () => {
    expect(accepts(['INC0012345', 'INC0012345'])).toBe(false);
  });
});
