import { describe, expect, it } from 'vitest';
import type { ConversationSummary } from '../../../functions/contract/conversations.js';
import { mergeByLastActivity } from '../../../web/src/app/merge-by-last-activity.js';

const summary = (
  conversationId: string,
  updatedAt: string,
  title = conversationId,
): ConversationSummary => ({
  conversationId,
  title,
  createdAt: '2026-11-01T00:00:00Z',
  updatedAt,
  version: 1,
  turnCount: 2,
});

describe('mergeByLastActivity', () => {
  it('orders by last activity, newest first', () => {
    const merged = mergeByLastActivity([
      summary('a', '2026-11-02T00:00:00Z'),
      summary('b', '2026-11-03T00:00:00Z'),
    ]);
    expect(merged.map((item) => item.conversationId)).toEqual(['b', 'a']);
  });

  it('lists a conversation once, preferring the fresher list', () => {
    const fresh = [summary('a', '2026-11-05T00:00:00Z', 'renamed')];
    const older = [
      summary('b', '2026-11-03T00:00:00Z'),
      summary('a', '2026-11-01T00:00:00Z', 'old'),
    ];
    const merged = mergeByLastActivity(fresh, older);
    expect(merged.map((item) => [item.conversationId, item.title])).toEqual([
      ['a', 'renamed'],
      ['b', 'b'],
    ]);
  });
});
