import { describe, expect, it } from 'vitest';
import { SCRUB_PLACEHOLDERS } from '../../../functions/knowledge/personal-data-scrub.js';
import type { TicketDraftFields } from '../../../web/src/knowledge/ticket-draft-reducer.js';
import { findScrubPlaceholders } from '../../../web/src/knowledge/validate-ticket-draft.js';

function draft(change: Partial<TicketDraftFields>): TicketDraftFields {
  return {
    subject: 'VPN に接続できない',
    category: 'Network',
    inquiry: '在宅勤務中に VPN に接続できない',
    resolution: ['VPN クライアントを再起動する'],
    restricted: false,
    desk: 'all',
    ...change,
  };
}

describe('findScrubPlaceholders', () => {
  it('finds none in a draft without placeholders (square brackets alone are not one)', () => {
    expect(findScrubPlaceholders(draft({ inquiry: '[設定] > [アカウント] を開く' }))).toEqual([]);
  });

  it('lists each placeholder once, subject, inquiry and steps in order', () => {
    const fields = draft({
      subject: '[氏名]さんの VPN',
      inquiry: '[氏名]（[メール]）から連絡',
      resolution: ['[電話] に折り返す', 'password: [secret]'],
    });
    expect(findScrubPlaceholders(fields)).toEqual(['[氏名]', '[メール]', '[電話]', '[secret]']);
  });

  it('knows every placeholder the server scrub writes, in both languages', () => {
    for (const placeholders of Object.values(SCRUB_PLACEHOLDERS)) {
      for (const placeholder of Object.values(placeholders)) {
        expect(findScrubPlaceholders(draft({ inquiry: `x ${placeholder} y` }))).toEqual([
          placeholder,
        ]);
      }
    }
  });
});
