import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The acceptance suite's report: one entry per check with its verdict, the figures it measured
 * and the lines that explain them; printed as markdown and written as markdown and JSON.
 */

/** `na`: the check cannot run on this target (the reason says why); never counted as passed. */
export type CheckStatus = 'pass' | 'fail' | 'na';

export type Figure = number | string | boolean | null;

export interface CheckResult {
  readonly id: string;
  readonly title: string;
  readonly status: CheckStatus;
  /** One line: what was seen, or why it failed or does not apply. */
  readonly summary: string;
  readonly figures: Readonly<Record<string, Figure>>;
  readonly details: readonly string[];
}

export interface IntegReport {
  readonly target: {
    readonly kind: 'aws' | 'local';
    readonly label: string;
    /** Where the Knowledge Base keeps its vectors: the figures of a run hold for that store. */
    readonly vectorStore: string;
  };
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly checks: readonly CheckResult[];
  readonly passed: boolean;
}

const STATUS_LABEL: Record<CheckStatus, string> = {
  pass: '✅ pass',
  fail: '❌ FAIL',
  na: '➖ not applicable',
};

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function formatMarkdown(report: IntegReport): string {
  const failed = report.checks.filter((check) => check.status === 'fail').length;
  const lines = [
    `# Acceptance suite: ${report.target.kind === 'aws' ? 'deployed stack' : 'local dry run'}`,
    '',
    `Target: ${report.target.label}  `,
    `Vector store: ${report.target.vectorStore}  `,
    `Run: ${report.startedAt} → ${report.finishedAt}  `,
    `Verdict: **${report.passed ? 'PASSED' : `FAILED (${failed} of ${report.checks.length} checks)`}**`,
    '',
    '| check | status | summary |',
    '|---|---|---|',
    ...report.checks.map(
      (check) => `| ${check.id} | ${STATUS_LABEL[check.status]} | ${cell(check.summary)} |`,
    ),
  ];
  for (const check of report.checks) {
    lines.push(
      '',
      `## ${check.id}: ${check.title}`,
      '',
      `${STATUS_LABEL[check.status]} — ${check.summary}`,
    );
    const figures = Object.entries(check.figures);
    if (figures.length > 0) {
      lines.push('', '| figure | value |', '|---|---|');
      for (const [name, value] of figures) lines.push(`| ${name} | ${cell(String(value))} |`);
    }
    if (check.details.length > 0) lines.push('', ...check.details.map((detail) => `- ${detail}`));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Writes `integ-report-<timestamp>.md` and `.json` into `directory` (`.data/`, gitignored).
 * @returns the two paths
 */
export async function writeReport(
  report: IntegReport,
  directory: string,
): Promise<{ markdown: string; json: string }> {
  await mkdir(directory, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, '-');
  const base = join(directory, `integ-report-${report.target.kind}-${stamp}`);
  const paths = { markdown: `${base}.md`, json: `${base}.json` };
  await writeFile(paths.markdown, formatMarkdown(report));
  await writeFile(paths.json, `${JSON.stringify(report, null, 2)}\n`);
  return paths;
}
