import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../local/start-local-stack.js';
import { CHECK_IDS, runAcceptanceSuite } from '../integ/acceptance-suite.js';
import { formatMarkdown, type IntegReport, writeReport } from '../integ/integ-report.js';
import {
  localTargetFunctionEnvironment,
  localTargetPacing,
  openLocalTarget,
} from '../integ/local-target.js';
import { startTestStack } from '../support/start-test-stack.js';

/**
 * The acceptance suite's dry run (`npm run test:integ -- --local`) against the local stack, in
 * CI: every check's code path runs against the real handler, SSE stream and Function URL
 * emulator, and the report says pass or — with a reason — not applicable, never fail.
 */
describe('acceptance suite, local dry run', () => {
  let stack: LocalStack;
  let report: IntegReport;
  let reportDir: string;

  beforeAll(async () => {
    stack = await startTestStack({
      responderPacing: localTargetPacing,
      functionEnvironment: { ...localTargetFunctionEnvironment },
    });
    reportDir = await mkdtemp(join(tmpdir(), 'integ-report-'));
    report = await runAcceptanceSuite(openLocalTarget(stack));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    if (reportDir) await rm(reportDir, { recursive: true, force: true });
  });

  it('runs every check, in order, and none fails', () => {
    expect(report.checks.map((check) => check.id)).toEqual([...CHECK_IDS]);
    const failed = report.checks.filter((check) => check.status === 'fail');
    expect(failed.map((check) => `${check.id}: ${check.summary}`)).toEqual([]);
    expect(report.passed).toBe(true);
    expect(report.target.kind).toBe('local');
    // Which store the figures hold for (the local Knowledge Base plays the default one).
    expect(report.target.vectorStore).toBe('opensearch-serverless');
    expect(formatMarkdown(report)).toContain('Vector store: opensearch-serverless');
  });

  it('reports what cannot apply locally as not applicable, with the reason', () => {
    const notApplicable = report.checks.filter((check) => check.status === 'na');
    expect(notApplicable.map((check) => check.id)).toEqual(['function-url-unsigned']);
    expect(notApplicable[0]?.summary).toMatch(/^not applicable locally: .*IAM/);
  });

  it('measures what the issue asks for', () => {
    const figures = Object.fromEntries(report.checks.map((check) => [check.id, check.figures]));
    expect(figures['first-token']?.firstTokenMs).toBeGreaterThan(0);
    expect(figures['first-token']?.firstTicketMs).toBeGreaterThan(0);
    expect(figures['token-spread']?.readsCarryingAdvice).toBeGreaterThan(1);
    expect(figures.heartbeats?.heartbeatSpanMs).toBeGreaterThanOrEqual(
      figures.heartbeats?.requiredSpanMs as number,
    );
    expect(figures['restricted-tickets']).toMatchObject({ probes: 30, leaks: 0 });
    expect(figures.grounding?.ticketCards).toBeGreaterThan(0);
    expect(figures['retrieval-evaluation']).toMatchObject({ restrictedReturned: 0 });
    expect(figures['retrieval-evaluation']?.MRR).toBeGreaterThan(0);
    expect(figures['knowledge-capture']).toMatchObject({
      publishStatus: 201,
      retrievedInChat: true,
      citedInChat: true,
      removal: 'synced',
    });
    expect(figures['knowledge-capture']?.draftSteps).toBeGreaterThan(0);
    expect(figures['usage-and-cost']?.meanOutputTokens).toBeGreaterThan(0);
    expect(figures['clean-up']?.deleted).toBe(figures['clean-up']?.conversations);
  });

  it('writes the report as markdown and JSON', async () => {
    const paths = await writeReport(report, reportDir);
    expect(paths.markdown).toMatch(/integ-report-local-.*\.md$/);
    expect(JSON.parse(await readFile(paths.json, 'utf8'))).toEqual(report);
    const markdown = await readFile(paths.markdown, 'utf8');
    expect(markdown).toBe(formatMarkdown(report));
    for (const id of CHECK_IDS) expect(markdown).toContain(`## ${id}: `);
    expect(markdown).toContain('Verdict: **PASSED**');
  });
});
