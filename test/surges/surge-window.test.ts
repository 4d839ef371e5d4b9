import { describe, expect, it } from 'vitest';
import {
  isSurging,
  SLICES_PER_WINDOW,
  type SurgeMark,
  type SurgeState,
  sliceLengthMs,
  tallyOf,
  withInquiry,
} from '../../functions/surges/surge-window.js';

const WINDOW = 60;
const start = new Date('2026-12-07T09:00:00Z');
const minutes = (count: number) => new Date(start.getTime() + count * 60_000);
const empty: SurgeState = { topicKey: '*|outlook', label: '', slices: [] };
const mark = (staff: string, inquiry: string, at: Date, example?: string): SurgeMark => ({
  topicKey: '*|outlook',
  label: 'outlook',
  staffHash: staff,
  inquiryHash: inquiry,
  at,
  ...(example ? { example } : {}),
});
const add = (state: SurgeState, next: SurgeMark) => withInquiry(state, next, WINDOW);

describe('the surge window', () => {
  it('counts distinct inquiries and staff, the current one included', () => {
    let state = add(empty, mark('a', 'q1', minutes(0), 'Outlookが起動しない'));
    state = add(state, mark('b', 'q2', minutes(5)));
    expect(isSurging(tallyOf(state, minutes(5), WINDOW), 3)).toBe(false);
    state = add(state, mark('c', 'q3', minutes(20)));
    const tally = tallyOf(state, minutes(20), WINDOW);
    expect(tally).toMatchObject({ inquiries: 3, staff: 3, since: minutes(0).toISOString() });
    expect(isSurging(tally, 3)).toBe(true);
    expect(tally.examples).toEqual(['Outlookが起動しない']);
    expect(tally.perSlice).toHaveLength(SLICES_PER_WINDOW);
    expect(tally.perSlice.reduce((sum, slice) => sum + slice.inquiries, 0)).toBe(3);
  });

  it('counts a retried or regenerated inquiry once, and a second inquiry of one person once as staff', () => {
    let state = add(empty, mark('a', 'q1', minutes(0)));
    state = add(state, mark('a', 'q1', minutes(1)));
    state = add(state, mark('a', 'q2', minutes(2)));
    expect(tallyOf(state, minutes(2), WINDOW)).toMatchObject({ inquiries: 2, staff: 1 });
  });

  it('forgets what left the window, never counting older than it', () => {
    let state = add(empty, mark('a', 'q1', minutes(0)));
    state = add(state, mark('b', 'q2', minutes(30)));
    expect(tallyOf(state, minutes(59), WINDOW).staff).toBe(2);
    // Slices are a sixth of the window: at 70 minutes the slice of minute 0 has left it.
    const later = tallyOf(state, minutes(70), WINDOW);
    expect(later).toMatchObject({ inquiries: 1, staff: 1, since: minutes(30).toISOString() });
    // An update removes the slices that left, so the item does not grow with time.
    state = add(state, mark('c', 'q3', minutes(130)));
    expect(state.slices.map((slice) => slice.slice)).toEqual([
      Math.floor(minutes(130).getTime() / sliceLengthMs(WINDOW)),
    ]);
  });

  it('adds in any order to the same counts (the store applies concurrent updates one by one)', () => {
    const marks = Array.from({ length: 20 }, (_, index) =>
      mark(`staff-${index}`, `q-${index}`, minutes(index % 9), `example ${index % 9}`),
    );
    const forward = marks.reduce(add, empty);
    const backward = [...marks].reverse().reduce(add, empty);
    const [a, b] = [tallyOf(forward, minutes(10), WINDOW), tallyOf(backward, minutes(10), WINDOW)];
    // The counts do not depend on the order; the first arrival and example of a slice do.
    expect({ ...a, since: undefined, examples: undefined }).toEqual({
      ...b,
      since: undefined,
      examples: undefined,
    });
    expect(tallyOf(forward, minutes(10), WINDOW)).toMatchObject({ inquiries: 20, staff: 20 });
  });
});
