/** Nearest-rank percentile (`p` in 0–100) of unsorted samples; NaN when there are none. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

/** `label  figure  target  ok?` with fixed columns, as the other benches print. */
export function row(label: string, figure: string, target: string, met?: boolean): string {
  const verdict = met === undefined ? '' : met ? '  ✓' : '  ✗ (target missed)';
  return `  ${label.padEnd(44)} ${figure.padStart(12)}   ${target.padEnd(14)}${verdict}`;
}
