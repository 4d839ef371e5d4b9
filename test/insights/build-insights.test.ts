import { describe, expect, it } from 'vitest';
import { insightsSchema } from '../../functions/contract/insights.js';
import {
  chatIncrements,
  feedbackIncrements,
  type InsightAggregates,
} from '../../functions/insights/aggregates.js';
import {
  buildInsights,
  MAX_GAPS,
  percentileOf,
  windowOf,
} from '../../functions/insights/build-insights.js';

const empty: InsightAggregates = {
  days: [],
  gaps: [],
  tickets: [],
  captures: [],
  retrieved: [],
  examples: [],
};

describe('windowOf', () => {
  it('ends on the UTC day of now and crosses month and leap-year ends', () => {
    const window = windowOf(30, new Date('2028-03-01T23:59:59+09:00'));
    expect(window.last).toBe('2028-03-01');
    expect(window.first).toBe('2028-02-01');
    expect(window.days).toContain('2028-02-29');
    expect(window.days).toHaveLength(30);
  });
});

describe('percentileOf', () => {
  it('is undefined for an empty histogram and the bucket bound at the nearest rank otherwise', () => {
    expect(percentileOf([0, 0, 0], 0.5)).toBeUndefined();
    // One chat per bucket 0..3: the median is the second chat, in the 500 ms bucket.
    expect(percentileOf([1, 1, 1, 1], 0.5)).toBe(500);
    expect(percentileOf([1, 1, 1, 1], 0.95)).toBe(1000);
    expect(percentileOf([19, 1], 0.95)).toBe(250);
    expect(percentileOf([18, 2], 0.95)).toBe(500);
  });
});

describe('buildInsights', () => {
  const now = new Date('2026-12-02T12:00:00Z');

  it('is a valid body with zero days when nothing happened', () => {
    const body = insightsSchema.parse(buildInsights(empty, { days: 90, now }));
    expect(body.activity.perDay).toHaveLength(90);
    expect(body.activity.perDay.every((day) => day.chats === 0)).toBe(true);
    expect(body.activity.totals.timeToFirstTokenP50Ms).toBeUndefined();
    expect(body.activity.totals.estimatedCostUsd).toBe(0);
    expect(body.gaps).toEqual([]);
    expect(body.generatedAt).toBe(now.toISOString());
  });

  it('ranks at most 20 gap topics, largest first, and lists the key term first, then the most frequent', () => {
    const gaps = Array.from({ length: 25 }, (_, index) => ({
      key: `2026-12-01#cat|term${String(index).padStart(2, '0')}`,
      counters: { weak_retrieval: index + 1 },
      labels: { category: 'cat', terms: [`term${String(index).padStart(2, '0')}`, 'shared'] },
    }));
    gaps.push({
      key: '2026-11-30#cat|term24',
      counters: { weak_retrieval: 1 },
      labels: { category: 'cat', terms: ['term24', 'rare', 'shared'] },
    });
    const body = buildInsights({ ...empty, gaps }, { days: 30, now });
    expect(body.gaps).toHaveLength(MAX_GAPS);
    expect(body.gaps[0]).toMatchObject({ topicKey: 'cat|term24', count: 26 });
    expect(body.gaps[0]?.terms).toEqual(['term24', 'shared', 'rare']);
    expect(body.gaps.at(-1)?.topicKey).toBe('cat|term05');
  });

  it('splits the trend at the middle of the window', () => {
    const gap = (day: string) => ({ key: `${day}#x|y`, counters: { no_ticket_cited: 1 } });
    const body = buildInsights(
      {
        ...empty,
        gaps: [gap('2026-11-03'), gap('2026-11-17'), gap('2026-11-18'), gap('2026-12-02')],
      },
      { days: 30, now },
    );
    // 30 days from 2026-11-03: the first 15 end on 2026-11-17.
    expect(body.gaps[0]?.trend).toEqual({ earlier: 2, later: 2 });
    expect(body.gaps[0]?.category).toBe('x');
  });
});

describe('feedbackIncrements', () => {
  const base = {
    answerDay: '2026-12-02',
    conversationId: 'c',
    answerSeq: 2,
    citedIssueIds: ['INC-1'],
    ownerHash: 'h',
    topic: { topicKey: 'network|vpn', category: 'network', terms: ['vpn'] },
  };

  it('adds nothing when the new verdict counts as the old one did', () => {
    const verdict = { rating: 'up' as const, updatedAt: '2026-12-02T10:00:00Z' };
    expect(
      feedbackIncrements({ ...base, next: { ...verdict, comment: 'thanks' } }, verdict),
    ).toEqual([]);
  });

  it('moves a verdict from 👍 to 👎 incomplete: day, ticket and gap counters in one delta each', () => {
    expect(
      feedbackIncrements(
        {
          ...base,
          next: { rating: 'down', reason: 'incomplete', updatedAt: '2026-12-02T10:01:00Z' },
        },
        { rating: 'up', updatedAt: '2026-12-02T10:00:00Z' },
      ),
    ).toEqual([
      { group: 'day', key: '2026-12-02', add: { ratedUp: -1, ratedDown: 1 } },
      { group: 'ticket-day', key: '2026-12-02#INC-1', add: { citedInDownRated: 1 } },
      {
        group: 'gap',
        key: '2026-12-02#network|vpn',
        add: { rated_down: 1 },
        labels: { topicKey: 'network|vpn', category: 'network', terms: ['vpn'] },
      },
    ]);
  });
});

describe('chatIncrements', () => {
  it('counts a failed chat that never reached the model as a chat with no cost missing', () => {
    const [day] = chatIncrements({
      day: '2026-12-02',
      conversationId: 'c',
      answerSeq: 2,
      outcome: 'failed',
      inputTokens: 0,
      outputTokens: 0,
      citedIssueIds: [],
      retrievedIssueIds: [],
    });
    expect(day).toEqual({ group: 'day', key: '2026-12-02', add: { chats: 1, failed: 1 } });
  });
});
