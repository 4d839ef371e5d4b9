import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BedrockAgentRuntimeClient } from '@aws-sdk/client-bedrock-agent-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EvaluationReport,
  evalHalf,
  loadEvalQueries,
  type QueryOutcome,
  runRetrievalEvaluation,
  scoreOutcomes,
} from '../../eval/retrieval-evaluation.js';
import { createKnowledgeBaseRetriever } from '../../functions/adapters/bedrock/knowledge-base-retriever.js';
import { toRetrievalQuery } from '../../functions/chat/retrieval.js';
import { ALL_DESK } from '../../functions/contract/desks.js';
import {
  type LocalBedrockServer,
  startLocalBedrockServer,
} from '../../local/bedrock/start-local-bedrock-server.js';

const query = (relevant: string[], acceptable: string[] = []) => ({
  id: 'q',
  query: 'x',
  language: 'ja' as const,
  slices: ['same_language' as const],
  relevant,
  acceptable,
  forbidden: [],
});
const outcome = (q: ReturnType<typeof query>, ranked: string[]): QueryOutcome => ({
  query: q,
  retrievalQuery: 'x',
  ranked,
  restrictedReturned: [],
  otherDesksReturned: [],
});

describe('scoreOutcomes', () => {
  it('counts recall per depth over the relevant tickets and MRR from the first relevant rank', () => {
    const report = scoreOutcomes([
      outcome(query(['1']), ['1', '2']),
      outcome(query(['3', '4']), ['9', '3', '8', '7', '6', '5', '2', '4']),
      outcome(query(['5'], ['6']), ['6', '7']),
    ]);
    expect(report.overall.recall[1]).toBeCloseTo(1 / 3);
    expect(report.overall.recall[3]).toBeCloseTo((1 + 0.5 + 0) / 3);
    expect(report.overall.recall[8]).toBeCloseTo((1 + 1 + 0) / 3);
    expect(report.overall.mrr).toBeCloseTo((1 + 1 / 2 + 0) / 3);
    // An acceptable ticket helps staff but is never counted as recall.
    expect(report.overall.helpfulAt3).toBeCloseTo(1);
    expect(report.misses.map((miss) => miss.relevant)).toEqual([['5']]);
  });
});

describe('evalHalf', () => {
  it('splits the set into two fixed halves of similar size by query id', async () => {
    const queries = await loadEvalQueries('data/eval/retrieval-queries.jsonl');
    const dev = queries.filter((query) => evalHalf(query.id) === 'dev');
    expect(dev.length).toBeGreaterThan(queries.length * 0.4);
    expect(dev.length).toBeLessThan(queries.length * 0.6);
    // Fixed by the id alone: the same query is always in the same half.
    expect(evalHalf('q001')).toBe(evalHalf('q001'));
    expect(new Set(queries.map((query) => evalHalf(query.id)))).toEqual(
      new Set(['dev', 'holdout']),
    );
  });
});

describe('npm run eval options', () => {
  it('refuses --rerank against the local Knowledge Base, saying it needs --target aws', async () => {
    const failure = await promisify(execFile)(process.execPath, [
      '--import',
      'tsx',
      'eval/run-retrieval-eval.ts',
      '--rerank',
      'both',
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--rerank needs --target aws'),
    });
  }, 60_000);
});

// The CI floor of the retrieval evaluation: the labelled set against the local Knowledge Base,
// through the real SDK client and the product's own query and merge. The floors sit just under
// the figures measured when they were set (2026-12-01, after the per-language merge of the index,
// the wider glossary and the strong-match condition: overall recall@1 74.8%, recall@3 91.9%,
// recall@8 97.8%, MRR 0.875; same-language recall@3 95.3%, MRR 0.975; cross-language recall@8
// 94.9% with the glossary, 69.2% without), so a regression fails. Where a product target is met
// (same-language recall@3 ≥ 95%), the floor is the target. The figures are the same to the
// last digit on Node 20.20 and 22.23 (ICU 78.2 and 78.3, whose word segmenter the index uses).
describe('retrieval evaluation against the local Knowledge Base', () => {
  let bedrock: LocalBedrockServer;
  let withGlossary: EvaluationReport;
  let withoutGlossary: EvaluationReport;

  beforeAll(async () => {
    bedrock = await startLocalBedrockServer({ pacing: { minMs: 0, maxMs: 0 } });
    const retriever = createKnowledgeBaseRetriever({
      client: new BedrockAgentRuntimeClient({
        endpoint: bedrock.agentRuntimeEndpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
      knowledgeBaseId: bedrock.knowledgeBaseId,
    });
    const queries = await loadEvalQueries('data/eval/retrieval-queries.jsonl');
    expect(queries.length).toBeGreaterThanOrEqual(120);
    const run = async (expand: boolean) =>
      scoreOutcomes(
        await runRetrievalEvaluation(queries, retriever, {
          queryFor: (text) => toRetrievalQuery(text, { expand }),
          desks: [ALL_DESK],
        }),
      );
    withGlossary = await run(true);
    withoutGlossary = await run(false);
  }, 120_000);
  afterAll(() => bedrock?.close());

  it('never returns a restricted ticket, to probes or anyone else', () => {
    expect(withGlossary.restricted.probes).toBeGreaterThanOrEqual(15);
    expect(withGlossary.restricted.returned).toBe(0);
    expect(withoutGlossary.restricted.returned).toBe(0);
  });

  it('stays above the floor overall and per slice', () => {
    const { overall, slices } = withGlossary;
    expect(overall.recall[1]).toBeGreaterThanOrEqual(0.74);
    expect(overall.recall[3]).toBeGreaterThanOrEqual(0.91);
    expect(overall.recall[8]).toBeGreaterThanOrEqual(0.97);
    expect(overall.mrr).toBeGreaterThanOrEqual(0.87);
    expect(slices.same_language?.recall[3]).toBeGreaterThanOrEqual(0.95);
    expect(slices.same_language?.recall[8]).toBeGreaterThanOrEqual(0.98);
    expect(slices.same_language?.mrr).toBeGreaterThanOrEqual(0.97);
    expect(slices.cross_language?.recall[8]).toBeGreaterThanOrEqual(0.94);
    expect(slices.typo?.recall[8]).toBeGreaterThanOrEqual(0.94);
    expect(slices.colloquial?.recall[8]).toBeGreaterThanOrEqual(0.99);
  });

  it('finds tickets in the other language far more often with the glossary than without', () => {
    const on = withGlossary.slices.cross_language;
    const off = withoutGlossary.slices.cross_language;
    expect(on?.recall[8]).toBeGreaterThanOrEqual((off?.recall[8] ?? 0) + 0.15);
    expect(on?.mrr).toBeGreaterThan((off?.mrr ?? 0) * 1.8);
  });
});
