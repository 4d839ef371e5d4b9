import { describe, expect, it } from 'vitest';
import type { TicketDraftFields } from '../../../web/src/knowledge/ticket-draft-reducer.js';
import { findDraftLinkWarnings } from '../../../web/src/knowledge/validate-ticket-draft.js';

const allowed = ['example.co.jp', 'microsoft.com'];

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

describe('findDraftLinkWarnings', () => {
  it('lists a link in a step whose domain is not on the allow-list', () => {
    const fields = draft({ resolution: ['パスワードは http://evil.example でリセットする'] });
    expect(findDraftLinkWarnings(fields, allowed)).toEqual(['http://evil.example']);
  });

  it('looks at the subject, the inquiry and every step, in that order, each link once', () => {
    const fields = draft({
      subject: 'evil.example/reset の件',
      inquiry: 'mail to phish@evil.example or see https://other.example/help',
      resolution: ['手順 1', 'http://evil.example/reset を開く', 'evil.example/reset'],
    });
    expect(findDraftLinkWarnings(fields, allowed)).toEqual([
      'evil.example/reset',
      'phish@evil.example',
      'https://other.example/help',
      'http://evil.example/reset',
    ]);
  });

  it('says nothing of links to allowed domains and their subdomains', () => {
    const fields = draft({
      inquiry: 'helpdesk@example.co.jp へ連絡',
      resolution: [
        '[サポート](https://support.microsoft.com/ja-jp) を参照',
        'https://portal.example.co.jp',
      ],
    });
    expect(findDraftLinkWarnings(fields, allowed)).toEqual([]);
  });

  it('reads a link as a browser does: a lookalike or userinfo host is not the allowed one', () => {
    const fields = draft({
      resolution: ['http://microsoft.com@evil.example/', 'https://microsoft.com.evil.example'],
    });
    expect(findDraftLinkWarnings(fields, allowed)).toEqual([
      'http://microsoft.com@evil.example/',
      'https://microsoft.com.evil.example',
    ]);
  });

  it('lists nothing when the server sent no allow-list (older than the check)', () => {
    const fields = draft({ resolution: ['http://evil.example'] });
    expect(findDraftLinkWarnings(fields, undefined)).toEqual([]);
  });
});
