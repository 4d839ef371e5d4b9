import { describe, expect, it } from 'vitest';
import { insightsSchema } from '../../functions/contract/insights.js';
import {
  chatIncrements,
  feedbackIncrements,
  GAP_ALREADY_COUNTED,
  type InsightAggregates,
  MAX_TICKET_SUBJECT_LENGTH,
  mailDraftIncrements,
  ticketSubjectLabelOf,
} from '../../functions/insights/aggregates.js';
import {
  buildInsights,
  MAX_GAPS,
  percentileOf,
  repliesOf,
  windowOf,
} from '../../functions/insights/build-insights.js';
import type { MailDraftInsight } from '../../functions/insights/ports.js';

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

  it('counts inquiries, not reasons: a 👎 on an inquiry its chat counted adds a reason only', () => {
    const body = buildInsights(
      {
        ...empty,
        gaps: [
          // One inquiry weak at chat time and rated 👎 later, one rated 👎 only, on the 1st; one
          // weak inquiry rated 👎 in the earlier half.
          {
            key: '2026-12-01#network|vpn',
            counters: { weak_retrieval: 1, rated_down: 2, [GAP_ALREADY_COUNTED]: 1 },
          },
          {
            key: '2026-11-05#network|vpn',
            counters: { weak_retrieval: 1, rated_down: 1, [GAP_ALREADY_COUNTED]: 1 },
          },
          // Two inquiries that cited nothing: more inquiries, though fewer reasons.
          { key: '2026-12-01#printer|toner', counters: { no_ticket_cited: 2 } },
        ],
      },
      { days: 30, now },
    );
    expect(
      body.gaps.map(({ topicKey, count, byReason, trend }) => ({
        topicKey,
        count,
        byReason,
        trend,
      })),
    ).toEqual([
      {
        topicKey: 'network|vpn',
        count: 3,
        byReason: { weak_retrieval: 2, no_ticket_cited: 0, rated_down: 3 },
        trend: { earlier: 1, later: 2 },
      },
      {
        topicKey: 'printer|toner',
        count: 2,
        byReason: { weak_retrieval: 0, no_ticket_cited: 2, rated_down: 0 },
        trend: { earlier: 0, later: 2 },
      },
    ]);
  });

  it('ranks gaps by inquiries: one inquiry with two reasons after two inquiries with one each', () => {
    const body = buildInsights(
      {
        ...empty,
        gaps: [
          {
            key: '2026-12-01#network|vpn',
            counters: { weak_retrieval: 1, rated_down: 1, [GAP_ALREADY_COUNTED]: 1 },
          },
          { key: '2026-12-01#printer|toner', counters: { no_ticket_cited: 2 } },
        ],
      },
      { days: 30, now },
    );
    expect(body.gaps.map((gap) => [gap.topicKey, gap.count])).toEqual([
      ['printer|toner', 2],
      ['network|vpn', 1],
    ]);
  });

  it('reads a gap row written before inquiries were told apart as the sum of its reasons', () => {
    const body = buildInsights(
      {
        ...empty,
        gaps: [{ key: '2026-12-01#network|vpn', counters: { weak_retrieval: 1, rated_down: 1 } }],
      },
      { days: 30, now },
    );
    expect(body.gaps[0]).toMatchObject({ count: 2, trend: { earlier: 0, later: 2 } });
  });

  it('drops a topic whose only 👎 was taken back, whatever order its counters landed in', () => {
    const body = buildInsights(
      {
        ...empty,
        gaps: [
          {
            key: '2026-12-01#network|vpn',
            counters: { rated_down: 0, [GAP_ALREADY_COUNTED]: 0, examples: 1 },
          },
          // A taken-back 👎 whose first count was lost: never below zero, never negative.
          {
            key: '2026-12-01#mail|outlook',
            counters: { rated_down: -1, [GAP_ALREADY_COUNTED]: -1 },
          },
        ],
      },
      { days: 30, now },
    );
    expect(body.gaps).toEqual([]);
  });

  it("fills a ticket's subject from its newest day with one", () => {
    const body = buildInsights(
      {
        ...empty,
        tickets: [
          { key: '2026-12-01#1001', counters: { cited: 1 }, labels: { subject: 'VPN 再接続' } },
          { key: '2026-11-20#1001', counters: { cited: 1 }, labels: { subject: 'VPN 旧件名' } },
          { key: '2026-11-28#1001', counters: { cited: 1 } },
          { key: '2026-12-01#1002', counters: { cited: 2, citedInDownRated: 2 } },
        ],
      },
      { days: 30, now },
    );
    expect(body.helped.mostSolved).toEqual([
      { issueId: '1001', subject: 'VPN 再接続', cited: 3, solved: 0, citedInDownRated: 0 },
      { issueId: '1002', cited: 2, solved: 0, citedInDownRated: 2 },
    ]);
    expect(body.helped.citedButDownRated).toEqual([
      { issueId: '1002', cited: 2, solved: 0, citedInDownRated: 2 },
    ]);
  });
});

describe('buildInsights: tickets never retrieved in 90 days', () => {
  const now = new Date('2026-12-02T12:00:00Z');
  // 2026-09-04 is the first of the 90 days ending on 2026-12-02.
  const retrieved = [
    { day: '2026-09-03', issueIds: ['1003', 'INC0000009'] },
    { day: '2026-09-04', issueIds: ['1001'] },
    { day: '2026-12-02', issueIds: ['1002', 'ZD#5'] },
  ];

  it('counts the catalog less the tickets retrieved in the last 90 days, out of the whole catalog', () => {
    const catalog = Array.from({ length: 30 }, (_, index) => String(1001 + index)).reverse();
    const { neverRetrieved } = buildInsights(
      { ...empty, retrieved },
      { days: 30, now, catalog: [...catalog, '1005'] },
    ).helped;
    // 1001 and 1002 were retrieved in the 90 days; 1003 only before them; ZD#5 is not listed.
    expect(neverRetrieved.count).toBe(28);
    expect(neverRetrieved.total).toBe(30);
    expect(neverRetrieved.sample).toEqual(
      Array.from({ length: 20 }, (_, index) => String(1003 + index)),
    );
  });

  it('counts every listed ticket when no chat retrieved anything, and none of an empty catalog', () => {
    expect(
      buildInsights(empty, { days: 90, now, catalog: ['1002', '1001'] }).helped.neverRetrieved,
    ).toEqual({ count: 2, total: 2, sample: ['1001', '1002'] });
    expect(buildInsights(empty, { days: 90, now, catalog: [] }).helped.neverRetrieved).toEqual({
      count: 0,
      total: 0,
      sample: [],
    });
  });

  it('without a catalog counts only tickets seen before the 90 days, with no total', () => {
    const body = insightsSchema.parse(buildInsights({ ...empty, retrieved }, { days: 30, now }));
    expect(body.helped.neverRetrieved).toEqual({ count: 2, sample: ['1003', 'INC0000009'] });
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

  const gapDown = {
    rating: 'down' as const,
    reason: 'irrelevant_tickets' as const,
    updatedAt: '2026-12-02T10:01:00Z',
  };
  const gapIncrementOf = (increments: ReturnType<typeof feedbackIncrements>) =>
    increments.find((increment) => increment.group === 'gap')?.add;

  it("adds a 👎's reason and marks the inquiry as already counted when its chat counted it", () => {
    expect(
      gapIncrementOf(
        feedbackIncrements({ ...base, next: gapDown }, undefined, { chatCountedGap: true }),
      ),
    ).toEqual({ rated_down: 1, [GAP_ALREADY_COUNTED]: 1 });
  });

  it('adds the inquiry with its 👎 when the chat did not count it, or the item predates the flag', () => {
    for (const answer of [{ chatCountedGap: false }, {}, undefined]) {
      expect(
        gapIncrementOf(feedbackIncrements({ ...base, next: gapDown }, undefined, answer)),
      ).toEqual({ rated_down: 1 });
    }
  });

  it('takes both back when a newer verdict replaces the 👎 on an inquiry the chat counted', () => {
    expect(
      gapIncrementOf(
        feedbackIncrements(
          { ...base, next: { rating: 'up', updatedAt: '2026-12-02T10:02:00Z' } },
          gapDown,
          { chatCountedGap: true },
        ),
      ),
    ).toEqual({ rated_down: -1, [GAP_ALREADY_COUNTED]: -1 });
    // A 👎 with another gap reason changes no gap counter.
    expect(
      gapIncrementOf(
        feedbackIncrements(
          {
            ...base,
            next: { ...gapDown, reason: 'incomplete', updatedAt: '2026-12-02T10:02:00Z' },
          },
          gapDown,
          { chatCountedGap: true },
        ),
      ),
    ).toBeUndefined();
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

  it('counts an answer with a mail draft among the answers with a draft', () => {
    const [day] = chatIncrements({
      day: '2026-12-02',
      conversationId: 'c',
      answerSeq: 2,
      outcome: 'complete',
      inputTokens: 10,
      outputTokens: 5,
      estimatedCostUsd: 0.001,
      citedIssueIds: [],
      retrievedIssueIds: [],
      hasMailDraft: true,
    });
    expect(day?.add).toMatchObject({ answers: 1, draftAnswers: 1 });
  });

  it("labels each cited ticket's counters with its Knowledge Base subject, newest write winning", () => {
    const increments = chatIncrements({
      day: '2026-12-02',
      conversationId: 'c',
      answerSeq: 2,
      outcome: 'complete',
      inputTokens: 10,
      outputTokens: 5,
      citedIssueIds: ['1001', '1002', '1003'],
      citedSubjects: { '1001': ' VPN\n 再接続 ', '1003': '   ' },
      retrievedIssueIds: ['1001', '1002', '1003'],
    });
    expect(increments.filter((increment) => increment.group === 'ticket-day')).toEqual([
      {
        group: 'ticket-day',
        key: '2026-12-02#1001',
        add: { cited: 1 },
        latestLabels: { subject: 'VPN 再接続' },
      },
      // No subject known (or only blanks): no label, so an older one is not overwritten.
      { group: 'ticket-day', key: '2026-12-02#1002', add: { cited: 1 } },
      { group: 'ticket-day', key: '2026-12-02#1003', add: { cited: 1 } },
    ]);
  });
});

describe('ticketSubjectLabelOf', () => {
  it('keeps at most the bound in code points, ending a longer subject with an ellipsis', () => {
    const long = '🔒'.repeat(MAX_TICKET_SUBJECT_LENGTH + 5);
    const label = ticketSubjectLabelOf(long) as string;
    expect(Array.from(label)).toHaveLength(MAX_TICKET_SUBJECT_LENGTH);
    expect(label.endsWith('🔒…')).toBe(true);
    const exact = 'あ'.repeat(MAX_TICKET_SUBJECT_LENGTH);
    expect(ticketSubjectLabelOf(exact)).toBe(exact);
    expect(ticketSubjectLabelOf('')).toBeUndefined();
  });
});

describe('repliesOf (the e-mail drafts of ADR 0023)', () => {
  it('has no rate without a denominator: no answer with a draft, no accepted answer', () => {
    expect(repliesOf('2026-12-02', [{}])).toEqual({
      day: '2026-12-02',
      answersWithDraft: 0,
      accepted: 0,
      changed: 0,
      acceptedChanged: 0,
      copies: 0,
      mailOpens: 0,
      edits: 0,
      refinements: 0,
    });
    // Drafts nobody used: an acceptance rate of 0, still no edit rate (nothing was accepted).
    const unused = repliesOf('2026-12-02', [{ draftAnswers: 3, draftChanged: 1, draftEdits: 2 }]);
    expect(unused.acceptanceRate).toBe(0);
    expect(unused).not.toHaveProperty('editRate');
    expect(unused).toMatchObject({ changed: 1, edits: 2 });
  });

  it('divides accepted by answers with a draft and accepted-and-changed by accepted, summed over days', () => {
    const figures = repliesOf('2026-12-02', [
      { draftAnswers: 3, draftAccepted: 2, draftAcceptedChanged: 1, draftCopies: 5 },
      { draftAnswers: 1, draftAccepted: 1, draftChanged: 2, draftMailOpens: 1 },
    ]);
    expect(figures).toMatchObject({
      answersWithDraft: 4,
      accepted: 3,
      changed: 2,
      acceptedChanged: 1,
      copies: 5,
      mailOpens: 1,
    });
    expect(figures.acceptanceRate).toBe(0.75);
    expect(figures.editRate).toBeCloseTo(1 / 3, 12);
  });

  it('caps a rate a lost counter write tipped over 1', () => {
    const figures = repliesOf('2026-12-02', [{ draftAnswers: 1, draftAccepted: 2 }]);
    expect(figures.acceptanceRate).toBe(1);
  });
});

describe('buildInsights: replies', () => {
  const now = new Date('2026-12-02T12:00:00Z');

  it('fills every day of the window and sums the totals with rates over the window', () => {
    const body = insightsSchema.parse(
      buildInsights(
        {
          ...empty,
          days: [
            { key: '2026-12-02', counters: { chats: 2, draftAnswers: 2, draftAccepted: 1 } },
            {
              key: '2026-11-20',
              counters: { draftAnswers: 2, draftAccepted: 2, draftAcceptedChanged: 1 },
            },
            // Outside 30 days: counted in neither the days nor the totals.
            { key: '2026-10-01', counters: { draftAnswers: 5 } },
          ],
        },
        { days: 30, now },
      ),
    );
    expect(body.replies.perDay).toHaveLength(30);
    expect(body.replies.perDay.at(-1)).toMatchObject({
      day: '2026-12-02',
      answersWithDraft: 2,
      accepted: 1,
      acceptanceRate: 0.5,
      editRate: 0,
    });
    expect(body.replies.perDay.at(-2)).not.toHaveProperty('acceptanceRate');
    expect(body.replies.totals).toMatchObject({
      answersWithDraft: 4,
      accepted: 3,
      acceptedChanged: 1,
      acceptanceRate: 0.75,
    });
    expect(body.replies.totals.editRate).toBeCloseTo(1 / 3, 12);
  });
});

describe('mailDraftIncrements', () => {
  const copy: MailDraftInsight = {
    answerDay: '2026-12-02',
    conversationId: 'c',
    answerSeq: 2,
    action: 'copy',
    at: '2026-12-02T10:00:00.000Z',
  };

  it('counts the first copy of a drafted answer as accepted, on the day recordChat counted it', () => {
    expect(mailDraftIncrements(copy, { day: '2026-12-01', hasMailDraft: true })).toEqual([
      { group: 'day', key: '2026-12-01', add: { draftCopies: 1, draftAccepted: 1 } },
    ]);
  });

  it('counts a later copy or open only as the action', () => {
    const accepted = { day: '2026-12-01', hasMailDraft: true, acceptedAt: copy.at };
    expect(mailDraftIncrements(copy, accepted)).toEqual([
      { group: 'day', key: '2026-12-01', add: { draftCopies: 1 } },
    ]);
    expect(mailDraftIncrements({ ...copy, action: 'open_in_mail' }, accepted)).toEqual([
      { group: 'day', key: '2026-12-01', add: { draftMailOpens: 1 } },
    ]);
  });

  it('counts an answer accepted and changed once, by whichever mark came second', () => {
    const edit = { ...copy, action: 'edit' as const };
    expect(mailDraftIncrements(edit, { hasMailDraft: true, acceptedAt: copy.at })).toEqual([
      {
        group: 'day',
        key: '2026-12-02',
        add: { draftEdits: 1, draftChanged: 1, draftAcceptedChanged: 1 },
      },
    ]);
    expect(mailDraftIncrements(copy, { hasMailDraft: true, changedAt: copy.at })).toEqual([
      {
        group: 'day',
        key: '2026-12-02',
        add: { draftCopies: 1, draftAccepted: 1, draftAcceptedChanged: 1 },
      },
    ]);
    expect(
      mailDraftIncrements(
        { ...copy, action: 'refine' },
        { hasMailDraft: true, acceptedAt: copy.at, changedAt: copy.at },
      ),
    ).toEqual([{ group: 'day', key: '2026-12-02', add: { draftRefinements: 1 } }]);
  });

  it('counts no accepted answer for an answer not counted with a draft, or unknown to the store', () => {
    expect(mailDraftIncrements(copy, undefined)).toEqual([
      { group: 'day', key: '2026-12-02', add: { draftCopies: 1 } },
    ]);
    expect(mailDraftIncrements(copy, { day: '2026-12-01', hasMailDraft: false })).toEqual([
      { group: 'day', key: '2026-12-01', add: { draftCopies: 1 } },
    ]);
  });
});
