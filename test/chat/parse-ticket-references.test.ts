import { describe, expect, it } from 'vitest';
import { normalizeIssueId, parseTicketReferences } from '../../functions/chat/inquiry-rules.js';

describe('parseTicketReferences', () => {
  it.each([
    ['さっきのチケット#1234について詳しく', ['1234']],
    ['チケット1234とINC-5678を比較', ['1234', '5678']],
    ['チケット番号：＃１２３４', ['1234']],
    ['see ticket 1001 and #1002', ['1001', '1002']],
    ['INC1234', ['1234']],
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

describe('normalizeIssueId', () => {
  it.each([
    ['1234', '1234'],
    ['#1234', '1234'],
    [' INC-1234 ', '1234'],
    ['ticket', undefined],
    ['12a', undefined],
  ])('%s → %s', (value, expected) => {
    expect(normalizeIssueId(value)).toBe(expected);
  });
});
