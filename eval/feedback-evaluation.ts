import type { EvaluationRun, SolvedInquiry } from '../functions/insights/ports.js';
import {
  type EvaluationReport,
  type QueryOutcome,
  type RankingScores,
  scoreRankings,
} from './retrieval-evaluation.js';

/**
 * The retrieval evaluation from use (issue #28): every inquiry staff marked a ticket as the
 * solution of ("この件で解決") is a labelled query — the inquiry's scrubbed text → the tickets
 * marked — run through the same retrieval path as the built-in set (`runRetrievalEvaluation`,
 * generic over the query type) and scored with the same recall@1/@3/@8 and MRR
 * (`scoreRankings`). The run is recorded in the insights store, so the page shows the latest.
 *
 * Privacy: the inquiry texts are inquiry text of staff, which reaches leads only (in gap
 * examples); this report runs in a platform team's terminal, so it names tickets, never texts.
 */

/** A solved inquiry as a query of the evaluation: its text, and its solutions as the relevant tickets. */
export interface FeedbackQuery {
  readonly query: string;
  readonly relevant: readonly string[];
  readonly day: string;
}

/**
 * The solved inquiries as labelled queries. One without text or without a solution ticket cannot
 * be scored, so it is left out (and counted in `skipped`); the store should hold none.
 */
export function toFeedbackQueries(solved: readonly SolvedInquiry[]): {
  readonly queries: FeedbackQuery[];
  readonly skipped: number;
} {
  const queries = solved
    .filter((inquiry) => inquiry.text.trim() !== '' && inquiry.issueIds.length > 0)
    .map((inquiry) => ({
      query: inquiry.text,
      relevant: [...new Set(inquiry.issueIds)],
      day: inquiry.day,
    }));
  return { queries, skipped: solved.length - queries.length };
}

/** The figures of one set as the insights page shows them. */
export type SetFigures = NonNullable<EvaluationRun['builtIn']>;

/** `scoreRankings` in the insights body's shape. */
export function toSetFigures(scores: RankingScores): SetFigures {
  return {
    queries: scores.queries,
    recallAt1: scores.recall[1],
    recallAt3: scores.recall[3],
    recallAt8: scores.recall[8],
    mrr: scores.mrr,
  };
}

/**
 * The run to record: the solved inquiries' figures and, beside them, the built-in set's overall
 * figures from the same Knowledge Base in the same run.
 */
export function toEvaluationRun(options: {
  readonly outcomes: readonly QueryOutcome<FeedbackQuery>[];
  readonly builtIn?: EvaluationReport;
  readonly target: EvaluationRun['target'];
  readonly ranAt: Date;
}): EvaluationRun {
  return {
    ranAt: options.ranAt.toISOString(),
    target: options.target,
    ...toSetFigures(scoreRankings(options.outcomes)),
    ...(options.builtIn && { builtIn: toSetFigures(options.builtIn.overall) }),
  };
}

/**
 * Solution tickets not found within the first 8, with how many inquiries they solved: the
 * tickets whose wording does not match how staff ask (ids only, most missed first).
 */
export function missedSolutions(
  outcomes: readonly QueryOutcome<FeedbackQuery>[],
): { readonly issueId: string; readonly inquiries: number }[] {
  const missed = new Map<string, number>();
  for (const { query, ranked } of outcomes) {
    const top = new Set(ranked.slice(0, 8));
    for (const issueId of query.relevant) {
      if (!top.has(issueId)) missed.set(issueId, (missed.get(issueId) ?? 0) + 1);
    }
  }
  return [...missed]
    .map(([issueId, inquiries]) => ({ issueId, inquiries }))
    .sort((a, b) => b.inquiries - a.inquiries || a.issueId.localeCompare(b.issueId));
}

/**
 * The knowledge-gap threshold held against the inquiries it should never flag. A solved inquiry's
 * retrieval found what solved it, so every one whose best score falls under the threshold (or
 * that retrieved nothing) would have counted as `weak_retrieval` — a false gap. The Knowledge
 * Base's scores are its own (a deployed vector store's similarities, not the local index's
 * damped BM25), so the threshold is calibrated on them: the 5th percentile of the solved
 * inquiries' best scores flags at most one in twenty of the retrievals that worked.
 */
export interface GapThresholdCheck {
  readonly threshold: number;
  readonly solved: number;
  /** Solved inquiries whose best score is under the threshold or that retrieved nothing. */
  readonly underThreshold: number;
  /** Percentiles (nearest rank) of the best scores; absent when nothing was retrieved at all. */
  readonly bestScore?: { readonly p5: number; readonly p50: number };
}

export function checkGapThreshold(
  outcomes: readonly Pick<QueryOutcome<FeedbackQuery>, 'bestScore'>[],
  threshold: number,
): GapThresholdCheck {
  const scores = outcomes
    .flatMap((outcome) => (outcome.bestScore === undefined ? [] : [outcome.bestScore]))
    .sort((a, b) => a - b);
  const underThreshold = outcomes.filter(
    (outcome) => outcome.bestScore === undefined || outcome.bestScore < threshold,
  ).length;
  const nearestRank = (share: number) =>
    scores[Math.max(0, Math.ceil(share * scores.length) - 1)] as number;
  return {
    threshold,
    solved: outcomes.length,
    underThreshold,
    ...(scores.length > 0 && { bestScore: { p5: nearestRank(0.05), p50: nearestRank(0.5) } }),
  };
}

/** The check in one sentence for the terminal, naming the setting to change. */
export function formatGapThresholdCheck(check: GapThresholdCheck, setting: string): string {
  const share = check.solved === 0 ? 0 : check.underThreshold / check.solved;
  const lines = [
    `Gap threshold ${check.threshold} (${setting}): ${check.underThreshold} of ${check.solved} ` +
      `solved inquiries (${(share * 100).toFixed(1)}%) are under it and would count as weak retrieval.`,
  ];
  if (check.bestScore) {
    const { p5, p50 } = check.bestScore;
    lines.push(
      `Their best scores: 5th percentile ${p5.toFixed(3)}, median ${p50.toFixed(3)}` +
        (check.threshold > p5
          ? ` — a threshold at most ${p5.toFixed(3)} flags no more than one in twenty of them.`
          : ' — the threshold sits under 95% of them.'),
    );
  }
  return lines.join('\n');
}

/** The two sets side by side as a markdown table, and the solutions missed within 8. */
export function formatFeedbackReport(
  run: EvaluationRun,
  outcomes: readonly QueryOutcome<FeedbackQuery>[],
  title: string,
): string {
  const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
  const row = (name: string, figures: SetFigures) =>
    `| ${name} | ${figures.queries} | ${percent(figures.recallAt1)} | ${percent(figures.recallAt3)} | ${percent(figures.recallAt8)} | ${figures.mrr.toFixed(3)} |`;
  const lines = [
    `## ${title}`,
    '',
    '| set | queries | recall@1 | recall@3 | recall@8 | MRR |',
    '|---|---|---|---|---|---|',
    row('solved inquiries', run),
    ...(run.builtIn ? [row('built-in set', run.builtIn)] : []),
  ];
  const missed = missedSolutions(outcomes);
  if (missed.length > 0) {
    lines.push(
      '',
      `Solution tickets not within 8 (${missed.length}): ${missed
        .map(({ issueId, inquiries }) => `#${issueId} (${inquiries}×)`)
        .join(', ')}`,
    );
  }
  return lines.join('\n');
}
