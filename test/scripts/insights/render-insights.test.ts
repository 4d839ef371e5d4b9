import { describe, expect, it } from 'vitest';
import {
  type ActivityDay,
  type Insights,
  insightsSchema,
  type RepliesDay,
} from '../../../functions/contract/insights.js';
import { renderInsights } from '../../../scripts/insights/render-insights.js';
import { createInMemoryInsightsStore } from '../../support/in-memory-insights-store.js';

const quietDay = (day: string): ActivityDay => ({
  day,
  chats: 0,
  answers: 0,
  clarifications: 0,
  truncated: 0,
  failed: 0,
  ratedUp: 0,
  ratedDown: 0,
  inputTokens: 0,
  outputTokens: 0,
  estimatedCostUsd: 0,
});

const noReplies = (day: string): RepliesDay => ({
  day,
  answersWithDraft: 0,
  accepted: 0,
  changed: 0,
  acceptedChanged: 0,
  copies: 0,
  mailOpens: 0,
  edits: 0,
  refinements: 0,
});

/** A 30-day window with two busy days, one gap, one ticket of each kind and an evaluation run. */
function sampleInsights(): Insights {
  const perDay = Array.from({ length: 30 }, (_, index) =>
    quietDay(new Date(Date.UTC(2026, 10, 3 + index)).toISOString().slice(0, 10)),
  );
  perDay[28] = {
    ...quietDay('2026-12-01'),
    chats: 4,
    answers: 3,
    clarifications: 1,
    ratedUp: 2,
    ratedDown: 1,
    timeToFirstTokenP50Ms: 850,
    timeToFirstTokenP95Ms: 2400,
    inputTokens: 12000,
    outputTokens: 3000,
    estimatedCostUsd: 0.081,
  };
  perDay[29] = {
    ...quietDay('2026-12-02'),
    chats: 1,
    failed: 1,
    inputTokens: 500,
    outputTokens: 0,
    estimatedCostUsd: undefined,
  };
  const replies = perDay.map((day) => noReplies(day.day));
  replies[28] = {
    ...noReplies('2026-12-01'),
    answersWithDraft: 3,
    accepted: 2,
    changed: 1,
    acceptedChanged: 1,
    copies: 3,
    mailOpens: 1,
    edits: 1,
    acceptanceRate: 2 / 3,
    editRate: 0.5,
  };
  const { day: _day, ...replyTotals } = replies[28];
  return insightsSchema.parse({
    generatedAt: '2026-12-02T03:00:00.000Z',
    days: 30,
    replies: { perDay: replies, totals: replyTotals },
    activity: {
      perDay,
      totals: {
        chats: 5,
        answers: 3,
        clarifications: 1,
        truncated: 0,
        failed: 1,
        ratedUp: 2,
        ratedDown: 1,
        timeToFirstTokenP50Ms: 850,
        timeToFirstTokenP95Ms: 2400,
        inputTokens: 12500,
        outputTokens: 3000,
      },
    },
    gaps: [
      {
        topicKey: 'network|vpn',
        category: 'network',
        terms: ['vpn', '接続'],
        count: 3,
        byReason: { weak_retrieval: 2, no_ticket_cited: 0, rated_down: 1 },
        trend: { earlier: 1, later: 2 },
        examples: [
          { text: 'VPNが切れる', day: '2026-12-01', ownerHash: 'a1', solved: true },
          { text: '在宅でVPNに入れない', day: '2026-12-01', ownerHash: 'b2', solved: false },
          { text: 'VPN again', day: '2026-11-10', ownerHash: 'a1', solved: false },
        ],
        draftFrom: { exampleId: 'e1' },
      },
    ],
    helped: {
      mostSolved: [
        {
          issueId: '1042',
          subject: 'VPN接続が切断される',
          cited: 5,
          solved: 3,
          citedInDownRated: 0,
        },
      ],
      citedButDownRated: [{ issueId: 'INC0012345', cited: 4, solved: 0, citedInDownRated: 3 }],
      neverRetrieved: { count: 25, total: 120, sample: ['7', '9'] },
    },
    capture: { drafts: 2, published: 1, syncsWaited: 0 },
    evaluation: {
      ranAt: '2026-12-02T02:00:00.000Z',
      target: 'local',
      queries: 4,
      recallAt1: 0.25,
      recallAt3: 0.5,
      recallAt8: 0.625,
      mrr: 0.3833,
      builtIn: { queries: 153, recallAt1: 0.748, recallAt3: 0.916, recallAt8: 0.978, mrr: 0.875 },
    },
  });
}

describe('renderInsights', () => {
  it('prints the page’s sections as aligned tables, only the days with activity', () => {
    expect(renderInsights(sampleInsights())).toMatchInlineSnapshot(`
      "# Service-desk insights, last 30 days (2026-11-03 – 2026-12-02, UTC)
      Generated 2026-12-02T03:00:00.000Z.

      ## Activity

      | chats | answers | clarifications | truncated | failed | rated up / down  | first token p50 / p95 | tokens in / out | est. cost |
      |-------|---------|----------------|-----------|--------|------------------|-----------------------|-----------------|-----------|
      | 5     | 3       | 1              | 0         | 1      | 2 / 1 (66.7% up) | 850 ms / 2400 ms      | 12500 / 3000    | unpriced  |

      | day        | chats | answers | clarifications | truncated | failed | rated up / down  | first token p50 / p95 | tokens in / out | est. cost |
      |------------|-------|---------|----------------|-----------|--------|------------------|-----------------------|-----------------|-----------|
      | 2026-12-01 | 4     | 3       | 1              | 0         | 0      | 2 / 1 (66.7% up) | 850 ms / 2400 ms      | 12000 / 3000    | $0.0810   |
      | 2026-12-02 | 1     | 0       | 0              | 0         | 1      | 0 / 0            | — / —                 | 500 / 0         | unpriced  |

      28 days without chats or ratings not shown.

      ## Replies (e-mail drafts)

      Acceptance rate 66.7% · edit rate 50.0%

      | answers with a draft | accepted | acceptance rate | changed | accepted and changed | edit rate | copies | mail opens | edits | refinements |
      |----------------------|----------|-----------------|---------|----------------------|-----------|--------|------------|-------|-------------|
      | 3                    | 2        | 66.7%           | 1       | 1                    | 50.0%     | 3      | 1          | 1     | 0           |

      | day        | answers with a draft | accepted | acceptance rate | changed | accepted and changed | edit rate | copies | mail opens | edits | refinements |
      |------------|----------------------|----------|-----------------|---------|----------------------|-----------|--------|------------|-------|-------------|
      | 2026-12-01 | 3                    | 2        | 66.7%           | 1       | 1                    | 50.0%     | 3      | 1          | 1     | 0           |

      acceptance rate: accepted (copied or opened in the mail client) / answers with a draft; edit rate: accepted and changed (edited or refined) / accepted — each answer once, counted on its own day.

      ## Knowledge gaps

      | category | terms     | inquiries | weak retrieval | no ticket cited | rated down | trend   | examples               | draft from       |
      |----------|-----------|-----------|----------------|-----------------|------------|---------|------------------------|------------------|
      | network  | vpn, 接続 | 3         | 2              | 0               | 1          | 1 → 2 ↑ | 3 (2 people, 1 solved) | a solved inquiry |

      trend: the window’s first half → second half. Example texts are for leads: on the insights page, or with --json.

      ## What helped

      ### Most often the solution

      | ticket | subject             | solved | cited | cited in rated-down |
      |--------|---------------------|--------|-------|---------------------|
      | #1042  | VPN接続が切断される | 3      | 5     | 0                   |

      ### Often cited but rated down (candidates to rewrite)

      | ticket      | subject | solved | cited | cited in rated-down |
      |-------------|---------|--------|-------|---------------------|
      | #INC0012345 |         | 0      | 4     | 3                   |

      ### Never retrieved in 90 days

      25 of 120 tickets: #7, #9, …
      (Restricted tickets count here: retrieval never returns them.)

      ## Knowledge capture

      | drafts | published | syncs that waited |
      |--------|-----------|-------------------|
      | 2      | 1         | 0                 |

      ## Retrieval evaluation from use

      Latest run 2026-12-02T02:00:00.000Z, against the local Knowledge Base.

      | set              | queries | recall@1 | recall@3 | recall@8 | MRR   |
      |------------------|---------|----------|----------|----------|-------|
      | solved inquiries | 4       | 25.0%    | 50.0%    | 62.5%    | 0.383 |
      | built-in set     | 153     | 74.8%    | 91.6%    | 97.8%    | 0.875 |"
    `);
  });

  it('never prints a gap example’s inquiry text (leads see it on the page or with --json)', () => {
    const text = renderInsights(sampleInsights());
    expect(text).not.toContain('VPNが切れる');
    expect(text).not.toContain('在宅');
    expect(text).toContain('3 (2 people, 1 solved)');
  });

  it('prints ticket and inquiry text as inert cells: no formula, no column break, one line', () => {
    const sample = sampleInsights();
    const [gap] = sample.gaps;
    const [solved] = sample.helped.mostSolved;
    const text = renderInsights({
      ...sample,
      gaps: gap ? [{ ...gap, category: '=HYPERLINK("https://evil.example","x")' }] : [],
      helped: {
        ...sample.helped,
        mostSolved: solved ? [{ ...solved, subject: '@SUM(1+1)|cmd\n-2+3' }] : [],
      },
    });
    expect(text).toContain(`| '=HYPERLINK("https://evil.example","x") |`);
    expect(text).toContain(`| '@SUM(1+1)\\|cmd -2+3 `);
    expect(text).not.toMatch(/\| [=+\-@]/);
  });

  it('says what is missing instead of printing empty tables', () => {
    const empty = sampleInsights();
    const text = renderInsights({
      ...empty,
      activity: {
        perDay: empty.activity.perDay.map((day) => quietDay(day.day)),
        totals: { ...quietDay('x'), day: undefined } as never,
      },
      replies: {
        perDay: empty.replies.perDay.map((day) => noReplies(day.day)),
        totals: { ...noReplies('x'), day: undefined } as never,
      },
      gaps: [],
      helped: { mostSolved: [], citedButDownRated: [], neverRetrieved: { count: 0, sample: [] } },
      evaluation: undefined,
    });
    expect(text).toContain('No chats in this window.');
    expect(text).toContain('Acceptance rate — · edit rate —');
    expect(text).toContain('No answer with an e-mail draft in this window.');
    expect(text).toContain('No knowledge gaps in this window.');
    expect(text).toContain('No ticket was marked as a solution.');
    expect(text).toContain('0 tickets');
    // No total: the deployment could not list its tickets, and the report says so.
    expect(text).toContain(
      'The tickets of this deployment cannot be listed, so there is no count out of all of them. Retrieved before but not in these 90 days: 0 tickets',
    );
    expect(text).not.toContain('Restricted tickets count here');
    expect(text).toContain('No run yet: npm run eval -- --from-feedback');
  });
});

describe('renderInsights of what readInsights computes', () => {
  it('prints a recorded chat, its 👎 as a gap of its topic, the solved ticket and the copied draft', async () => {
    const store = createInMemoryInsightsStore();
    const scope = { tenantId: 'local' };
    const topic = { topicKey: 'network|vpn', category: 'network', terms: ['vpn'] };
    const base = {
      day: '2026-12-02',
      answerSeq: 2,
      outcome: 'complete' as const,
      timeToFirstTokenMs: 900,
      inputTokens: 1000,
      outputTokens: 200,
      estimatedCostUsd: 0.006,
      retrievedIssueIds: ['1042', '1043'],
      topic,
      hasMailDraft: true,
    };
    await store.recordChat(scope, {
      ...base,
      conversationId: '01JCLIRENDER000000000000001',
      citedIssueIds: ['1042'],
    });
    await store.recordChat(scope, {
      ...base,
      conversationId: '01JCLIRENDER000000000000002',
      citedIssueIds: ['1043'],
    });
    await store.recordFeedback(scope, {
      answerDay: '2026-12-02',
      conversationId: '01JCLIRENDER000000000000001',
      answerSeq: 2,
      next: { rating: 'up', helpfulTicketIds: ['1042'], updatedAt: '2026-12-02T09:00:00.000Z' },
      citedIssueIds: ['1042'],
      inquiryText: 'VPNが切れる',
      ownerHash: 'a1',
    });
    await store.recordFeedback(scope, {
      answerDay: '2026-12-02',
      conversationId: '01JCLIRENDER000000000000002',
      answerSeq: 2,
      next: { rating: 'down', reason: 'irrelevant_tickets', updatedAt: '2026-12-02T09:01:00.000Z' },
      citedIssueIds: ['1043'],
      ownerHash: 'b2',
    });
    // The first answer's draft copied twice, then edited: one of two answers accepted, and changed.
    for (const action of ['copy', 'copy', 'edit'] as const) {
      await store.recordMailDraft(scope, {
        answerDay: '2026-12-02',
        conversationId: '01JCLIRENDER000000000000001',
        answerSeq: 2,
        action,
        at: '2026-12-02T09:05:00.000Z',
      });
    }
    const text = renderInsights(
      await store.readInsights(scope, 30, new Date('2026-12-02T10:00:00Z')),
    );
    // The totals row: 2 chats, 2 answers, 1 up and 1 down, the 900 ms bucket, 2000 / 400 tokens.
    expect(text).toMatch(/\| 2 +\| 2 +\| 0 +\| 0 +\| 0 +\| 1 \/ 1 \(50\.0% up\) +\|/);
    expect(text).toContain('| 2026-12-02 |');
    expect(text).toMatch(/\| network +\| vpn +\| 1 +\| 0 +\| 0 +\| 1 +\|/);
    expect(text).toMatch(/\| #1042 +\| +\| 1 +\| 1 +\| 0 +\|/);
    expect(text).toContain('Acceptance rate 50.0% · edit rate 100.0%');
    // answers with a draft, accepted, rate, changed, accepted and changed, rate, copies, opens, edits.
    expect(text).toMatch(
      /\| 2026-12-02 \| 2 +\| 1 +\| 50\.0% +\| 1 +\| 1 +\| 100\.0% +\| 2 +\| 0 +\| 1 +\| 0 +\|/,
    );
    expect(text).not.toContain('VPNが切れる');
  });
});
