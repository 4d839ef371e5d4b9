import { describe, expect, it } from 'vitest';
import type { Bubble } from '../../../web/src/state/bubble.js';
import { withInquiryBoundaries } from '../../../web/src/state/with-inquiry-boundaries.js';

const user = (id: string, inquiryId?: string): Bubble => ({
  kind: 'user',
  id,
  text: id,
  inquiryId,
});

describe('withInquiryBoundaries', () => {
  it('draws a boundary where the inquiry changes, never before the first', () => {
    const rows = withInquiryBoundaries([
      user('a', 'i1'),
      user('b', 'i1'),
      user('c', 'i2'),
      user('d', 'i3'),
    ]);
    expect(rows.map((r) => (r.type === 'boundary' ? `|${r.inquiryId}` : r.bubble.id))).toEqual([
      'a',
      'b',
      '|i2',
      'c',
      '|i3',
      'd',
    ]);
  });

  it('draws nothing for a message whose inquiry is not known yet', () => {
    const rows = withInquiryBoundaries([user('a', 'i1'), user('b')]);
    expect(rows.every((r) => r.type === 'bubble')).toBe(true);
  });

  it('draws the boundary once the pending message learns its new inquiry', () => {
    const rows = withInquiryBoundaries([user('a', 'i1'), user('b', 'i2')]);
    expect(rows[1]).toEqual({ type: 'boundary', inquiryId: 'i2' });
  });
});
