import type { StreamBenchResult } from '../../web/src/bench/stream-bench-result.js';

export interface StreamRunSummary {
  /** Median main-thread ms per token over the first 10% of tokens. */
  readonly early: number;
  /** The same over the last 10%: with per-token cost independent of length, about `early`. */
  readonly late: number;
  readonly ratio: number;
  readonly worst: number;
  readonly longTasks: number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

/** Early vs late per-token cost and long tasks of one streamed answer. */
export function summarizeStreamRun(run: StreamBenchResult): StreamRunSummary {
  const tenth = Math.max(1, Math.floor(run.perTokenMs.length / 10));
  const early = median(run.perTokenMs.slice(0, tenth));
  const late = median(run.perTokenMs.slice(-tenth));
  return {
    early,
    late,
    ratio: early > 0 ? late / early : Number.POSITIVE_INFINITY,
    worst: Math.max(...run.perTokenMs),
    longTasks: run.longTasksMs.length,
  };
}
