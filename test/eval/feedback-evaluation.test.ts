import { describe, expect, it } from 'vitest';
import {
  checkGapThreshold,
  type FeedbackQuery,
  formatFeedbackReport,
  formatGapThresholdCheck,
  missedSolutions,
  toEvaluationRun,
  toFeedbackQueries,
} from '../../eval/feedback-evaluation.js';
import {
  type EvaluationReport,
  type QueryOutcome,
  scoreRankings,
} from '../../eval/retrieval-evaluation.js';

const outcome = (relevant: string[], ranked: string[]): QueryOutcome<FeedbackQuery> => ({
  query: { query: 'x', relevant, day: '2026-12-01' },
  retrievalQuery: 'x',
  ranked,
  restrictedReturned: [],
  otherDesksReturned: [],
});

describe('toFeedbackQueries', () => {
  it('makes each solved inquiry a query whose relevant tickets are the ones marked as its solution', () => {
    const { queries, skipped } = toFeedbackQueries([
      { text: 'VPNにつながらない', issueIds: ['1042'], day: '2026-11-30' },
      {
        text: 'Outlook keeps asking for my password',
        issueIds: ['INC0012345', 'INC0012345', '7'],
        day: '2026-12-01',
      },
    ]);
    expect(queries).toEqual([
      { query: 'VPNにつながらない', relevant: ['1042'], day: '2026-11-30' },
      {
        query: 'Outlook keeps asking for my password',
        relevant: ['INC0012345', '7'],
        day: '2026-12-01',
      },
    ]);
    expect(skipped).toBe(0);
  });

  it('leaves out an inquiry that cannot be scored (no text, no solution) and counts it', () => {
    const { queries, skipped } = toFeedbackQueries([
      { text: '  ', issueIds: ['1'], day: '2026-12-01' },
      { text: 'printer', issueIds: [], day: '2026-12-01' },
      { text: 'printer jam', issueIds: ['2'], day: '2026-12-01' },
    ]);
    expect(queries.map((query) => query.query)).toEqual(['printer jam']);
    expect(skipped).toBe(2);
  });
});

describe('scoreRankings on solved inquiries', () => {
  // Hand-computed: four inquiries.
  //  A solved by 10, ranked first            → r@1 1,   r@3 1,   r@8 1,   RR 1
  //  B solved by 20, ranked third            → r@1 0,   r@3 1,   r@8 1,   RR 1/3
  //  C solved by 30 and 31; 31 fifth, 30 out → r@1 0,   r@3 0,   r@8 1/2, RR 1/5
  //  D solved by 40, ranked ninth (past 8)   → r@1 0,   r@3 0,   r@8 0,   RR 0
  const outcomes = [
    outcome(['10'], ['10', '11', '12']),
    outcome(['20'], ['21', '22', '20']),
    outcome(['30', '31'], ['1', '2', '3', '4', '31', '5', '6', '7', '30']),
    outcome(['40'], ['1', '2', '3', '4', '5', '6', '7', '8', '40']),
  ];

  it('gives recall@1/@3/@8 as the mean share of each inquiry’s solutions found, and MRR', () => {
    const scores = scoreRankings(outcomes);
    expect(scores.queries).toBe(4);
    expect(scores.recall[1]).toBeCloseTo(1 / 4, 10);
    expect(scores.recall[3]).toBeCloseTo(2 / 4, 10);
    expect(scores.recall[8]).toBeCloseTo(2.5 / 4, 10);
    expect(scores.mrr).toBeCloseTo((1 + 1 / 3 + 1 / 5 + 0) / 4, 10);
  });

  it('refuses a query without a relevant ticket instead of scoring it as a miss', () => {
    expect(() => scoreRankings([outcome([], ['1'])])).toThrow(/needs a relevant ticket/);
  });

  it('records the run with the built-in set’s overall figures beside it', () => {
    const builtIn = {
      overall: {
        queries: 153,
        recall: { 1: 0.748, 3: 0.916, 8: 0.978 },
        mrr: 0.875,
        helpfulAt3: 0.95,
      },
    } as unknown as EvaluationReport;
    const run = toEvaluationRun({
      outcomes,
      builtIn,
      target: 'local',
      ranAt: new Date('2026-12-02T03:00:00Z'),
    });
    expect(run).toEqual({
      ranAt: '2026-12-02T03:00:00.000Z',
      target: 'local',
      queries: 4,
      recallAt1: 0.25,
      recallAt3: 0.5,
      recallAt8: 0.625,
      mrr: expect.closeTo((1 + 1 / 3 + 1 / 5) / 4, 10),
      builtIn: { queries: 153, recallAt1: 0.748, recallAt3: 0.916, recallAt8: 0.978, mrr: 0.875 },
    });
  });
});

describe('formatFeedbackReport', () => {
  it('prints both sets side by side and the solutions missed within 8, by ticket, never the inquiry text', () => {
    const outcomes = [
      {
        ...outcome(['40'], ['1']),
        query: { query: '田中さんのPCが起動しない', relevant: ['40'], day: '2026-12-01' },
      },
      outcome(['40', '41'], ['41']),
      outcome(['10'], ['10']),
    ];
    const run = toEvaluationRun({
      outcomes,
      target: 'aws',
      ranAt: new Date('2026-12-02T00:00:00Z'),
    });
    const text = formatFeedbackReport(run, outcomes, 'Retrieval evaluation from use');
    expect(text).toMatchInlineSnapshot(`
      "## Retrieval evaluation from use

      | set | queries | recall@1 | recall@3 | recall@8 | MRR |
      |---|---|---|---|---|---|
      | solved inquiries | 3 | 50.0% | 50.0% | 50.0% | 0.667 |

      Solution tickets not within 8 (1): #40 (2×)"
    `);
    expect(text).not.toContain('田中');
    expect(missedSolutions(outcomes)).toEqual([{ issueId: '40', inquiries: 2 }]);
  });
});

describe('checkGapThreshold', () => {
  // Twenty solved inquiries: best scores 0.05, 0.10, … 0.95 and one that retrieved nothing.
  const scored = Array.from({ length: 19 }, (_, index) => ({ bestScore: (index + 1) / 20 }));
  const outcomes = [...scored, {}];

  it('counts the solved inquiries a threshold would call weak retrieval, nothing retrieved included', () => {
    // Under 0.4: 0.05 … 0.35 (7), and the one without a score.
    expect(checkGapThreshold(outcomes, 0.4)).toEqual({
      threshold: 0.4,
      solved: 20,
      underThreshold: 8,
      bestScore: { p5: 0.05, p50: 0.5 },
    });
    expect(checkGapThreshold(outcomes, 0).underThreshold).toBe(1);
    expect(checkGapThreshold([{}], 0.4)).toEqual({ threshold: 0.4, solved: 1, underThreshold: 1 });
  });

  it('names the setting and the highest threshold that flags at most one in twenty', () => {
    const high = formatGapThresholdCheck(
      checkGapThreshold(outcomes, 0.4),
      'cdk.json insightsGapScore',
    );
    expect(high).toContain(
      'Gap threshold 0.4 (cdk.json insightsGapScore): 8 of 20 solved inquiries (40.0%)',
    );
    expect(high).toContain('a threshold at most 0.050 flags no more than one in twenty of them');
    const low = formatGapThresholdCheck(checkGapThreshold(outcomes, 0.05), 'INSIGHTS_GAP_SCORE');
    expect(low).toContain('the threshold sits under 95% of them');
  });
});
