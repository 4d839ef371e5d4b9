import { describe, expect, it } from 'vitest';
import { parseTicketReferences } from '../../functions/chat/inquiry-rules.js';
import {
  canonicalIssueId,
  findTicketReferences,
} from '../../functions/contract/ticket-references.js';

describe('parseTicketReferences', () => {
  it.each([
    ['さっきのチケット#1234について詳しく', ['1234']],
    // A letter prefix names a source's ticket, never the app's (ADR 0020): INC-5678 is a Jira key.
    ['チケット1234とINC-5678を比較', ['1234', 'INC-5678']],
    ['チケット番号：＃１２３４', ['1234']],
    ['see ticket 1001 and #1002', ['1001', '1002']],
    ['INC1234', ['INC1234']],
    ['内線1234にかけても繋がらない', []],
    ['2025年1月から', []],
    ['#12 is too short', []],
  ])('%s', (text, expected) => {
    expect(parseTicketReferences(text)).toEqual(expected);
  });
});

it('keeps at most 10 references', () => {
  const text = Array.from({ length: 300 }, (_, index) => `#${1000 + index}`).join(' ');
  expect(parseTicketReferences(text)).toHaveLength(10);
});

describe('canonicalIssueId', () => {
  it.each<[unknown, string]>([
    ['1234', '1234'],
    [1234, '1234'],
    [12345.0, '12345'],
    ['#1234', '1234'],
    [' 12345 ', '12345'],
    [' INC-1234 ', 'INC-1234'],
    ['チケット1234', '1234'],
    ['Ticket No. 1234', '1234'],
    ['１２３４５', '12345'],
    ['＃０１２３４５', '12345'],
    ['0042', '42'],
  ])('reads %j as %s', (value, expected) => {
    expect(canonicalIssueId(value)).toBe(expected);
  });

  it.each<unknown>([
    'ticket',
    '12a',
    '',
    '#',
    '1234, 5678',
    '1234 5678',
    '#1234 #5678',
    'see #1234',
    '1234 (VPN)',
    '12.5',
    '-1234',
    '1e3',
    '1234567890123',
    12.5,
    -1234,
    Number.NaN,
    2 ** 53,
    null,
    true,
    ['1234'],
    { issue_id: '1234' },
  ])('rejects %j as ambiguous or not an id', (value) => {
    expect(canonicalIssueId(value)).toBeUndefined();
  });
});

describe('findTicketReferences', () => {
  it.each([
    ['過去の #12345 を参照', '#12345', '12345'],
    ['チケット12345の手順', 'チケット12345', '12345'],
    ['チケット番号：＃１２３４５', 'チケット番号：＃１２３４５', '12345'],
    ['ﾁｹｯﾄ 12345 と同じ', 'ﾁｹｯﾄ 12345', '12345'],
    ['see INC-12345.', 'INC-12345', 'INC-12345'],
    ['like ticket 12345 did', 'ticket 12345', '12345'],
    ['Ticket No. 012345', 'Ticket No. 012345', '12345'],
    ['**#9001**: 再起動', '#9001', '9001'],
  ])(
    'finds the reference in %s with offsets into the text as written',
    (text, written, issueId) => {
      const [reference, ...rest] = findTicketReferences(text);
      expect(rest).toEqual([]);
      expect(reference?.issueId).toBe(issueId);
      expect(text.slice(reference?.start, reference?.end)).toBe(written);
    },
  );

  it.each(['内線12345にかけてください', '2025年1月から', 'ポート 443 を開ける', '#12 は短すぎる'])(
    'finds nothing in %s',
    (text) => {
      expect(findTicketReferences(text)).toEqual([]);
    },
  );

  it('keeps offsets right after astral characters and expansions', () => {
    const text = '🙂㍻ #1001 と #1001';
    const references = findTicketReferences(text);
    expect(references.map((reference) => text.slice(reference.start, reference.end))).toEqual([
      '#1001',
      '#1001',
    ]);
  });
});
