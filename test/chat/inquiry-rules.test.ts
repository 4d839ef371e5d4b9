import { describe, expect, it } from 'vitest';
import {
  openInquiryAfterAssistantTurn,
  placeUserTurn,
} from '../../functions/chat/inquiry-rules.js';

const fresh = () => 'NEW';

describe('placeUserTurn', () => {
  it('continues the inquiry whose clarification awaits a reply', () => {
    expect(placeUserTurn('A', 'continue', fresh)).toEqual({ kind: 'option', inquiryId: 'A' });
  });

  it('starts a new inquiry when none awaits a reply (after results, a failure or a stop)', () => {
    expect(placeUserTurn(undefined, 'continue', fresh)).toEqual({
      kind: 'question',
      inquiryId: 'NEW',
    });
  });

  it('starts a new inquiry when staff ask for one, even while a clarification awaits a reply', () => {
    expect(placeUserTurn('A', 'new', fresh)).toEqual({ kind: 'question', inquiryId: 'NEW' });
  });
});

describe('openInquiryAfterAssistantTurn', () => {
  const clarification = { inquiryId: 'A', kind: 'clarification', status: 'complete' } as const;

  it('opens the inquiry for a complete clarification of the latest inquiry', () => {
    expect(openInquiryAfterAssistantTurn({ latestInquiryId: 'A' }, clarification)).toBe('A');
  });

  it.each([
    ['a complete results answer', { kind: 'answer', status: 'complete' }],
    ['a truncated results answer', { kind: 'answer', status: 'truncated' }],
    ['a failed answer', { kind: 'answer', status: 'failed' }],
    ['a stopped answer', { kind: 'answer', status: 'stopped' }],
    ['a stopped clarification', { kind: 'clarification', status: 'stopped' }],
    ['a truncated clarification', { kind: 'clarification', status: 'truncated' }],
  ] as const)('closes the inquiry after %s', (_name, answer) => {
    expect(
      openInquiryAfterAssistantTurn(
        { openInquiryId: 'A', latestInquiryId: 'A' },
        { inquiryId: 'A', ...answer },
      ),
    ).toBeUndefined();
  });

  it('never opens an older inquiry over a newer one (a retry answered late)', () => {
    expect(openInquiryAfterAssistantTurn({ latestInquiryId: 'B' }, clarification)).toBeUndefined();
  });

  it('leaves another inquiry open when an older one is answered', () => {
    expect(
      openInquiryAfterAssistantTurn(
        { openInquiryId: 'B', latestInquiryId: 'B' },
        { inquiryId: 'A', kind: 'answer', status: 'failed' },
      ),
    ).toBe('B');
  });
});
