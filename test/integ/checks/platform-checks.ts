import {
  EVALUATION_TARGETS,
  formatReport,
  loadEvalQueries,
  runRetrievalEvaluation,
  scoreOutcomes,
} from '../../../eval/retrieval-evaluation.js';
import { toRetrievalQuery } from '../../../functions/chat/retrieval.js';
import type { Turn } from '../../../functions/contract/conversations.js';
import { ALL_DESK } from '../../../functions/contract/desks.js';
import { estimateCostUsd } from '../../../functions/observability/model-prices.js';
import type { IntegTarget } from '../integ-target.js';
import type { SuiteSession } from '../suite-session.js';
import type { CheckOutcome } from './streaming-checks.js';

/**
 * The platform around the answers: the Function URL refuses callers that bypass CloudFront, the
 * deployed Knowledge Base meets the retrieval evaluation, every answer stores its token usage
 * (and what it cost), and the API deletes what the run created.
 */

export async function functionUrlCheck(target: IntegTarget): Promise<CheckOutcome> {
  if (!target.functionUrl) throw new Error('the target has no Function URL');
  const body = JSON.stringify({ message: 'unsigned call' });
  const calls = [
    { label: 'POST /api/chat', path: 'api/chat', method: 'POST', body },
    { label: 'GET /api/conversations', path: 'api/conversations', method: 'GET' },
  ];
  const statuses: Record<string, number> = {};
  for (const call of calls) {
    const response = await fetch(new URL(call.path, target.functionUrl), {
      method: call.method,
      headers: call.body ? { 'content-type': 'application/json' } : {},
      body: call.body,
      signal: AbortSignal.timeout(30_000),
    });
    await response.body?.cancel();
    statuses[call.label] = response.status;
  }
  const refused = Object.values(statuses).every((status) => status === 403);
  const list = Object.entries(statuses).map(([label, status]) => `${label} → ${status}`);
  return {
    status: refused ? 'pass' : 'fail',
    summary: refused
      ? `the Function URL refuses calls without CloudFront's signature (${list.join(', ')})`
      : `the Function URL answered a call without CloudFront's signature: ${list.join(', ')} (403 expected: AuthType AWS_IAM)`,
    figures: { functionUrl: target.functionUrl, ...statuses },
    details: [],
  };
}

export async function retrievalEvaluationCheck(
  target: IntegTarget,
  queriesPath: string,
): Promise<CheckOutcome> {
  const queries = await loadEvalQueries(queriesPath);
  const outcomes = await runRetrievalEvaluation(queries, target.retriever, {
    queryFor: (text) => toRetrievalQuery(text, { expand: target.queryExpansion }),
    desks: [ALL_DESK],
  });
  const report = scoreOutcomes(outcomes);
  const same = report.slices.same_language;
  const cross = report.slices.cross_language;
  const figures = {
    queries: queries.length,
    glossaryExpansion: target.queryExpansion,
    'recall@1': round(report.overall.recall[1]),
    'recall@3': round(report.overall.recall[3]),
    'recall@8': round(report.overall.recall[8]),
    MRR: round(report.overall.mrr),
    'same_language recall@3': same ? round(same.recall[3]) : null,
    'same_language MRR': same ? round(same.mrr) : null,
    'cross_language recall@8': cross ? round(cross.recall[8]) : null,
    restrictedReturned: report.restricted.returned,
  };
  const targets = [
    same &&
      `same_language (${EVALUATION_TARGETS.same_language}) ${same.recall[3] >= 0.95 && same.mrr >= 0.9 ? 'met' : 'missed'}`,
    cross &&
      `cross_language (${EVALUATION_TARGETS.cross_language}) ${cross.recall[8] >= 0.8 ? 'met' : 'missed'}`,
  ].filter((line): line is string => typeof line === 'string');
  const details = [
    `Knowledge Base: ${target.retrieverLabel}`,
    `targets (goals of the retrieval issue; reported, not enforced): ${targets.join('; ')}`,
    ...formatReport(report, 'retrieval evaluation')
      .split('\n')
      .filter((line) => line.startsWith('| ')),
  ];
  if (report.restricted.returned > 0) {
    return {
      status: 'fail',
      summary: `the Knowledge Base returned ${report.restricted.returned} restricted ticket(s): its metadata filter is not applied`,
      figures,
      details,
    };
  }
  return {
    status: 'pass',
    summary: `recall@3 ${percent(report.overall.recall[3])}, recall@8 ${percent(report.overall.recall[8])}, MRR ${report.overall.mrr.toFixed(3)} over ${queries.length} queries; 0 restricted tickets returned`,
    figures,
    details,
  };
}

interface StoredConversation {
  readonly turns: readonly Turn[];
}

export async function usageCheck(session: SuiteSession): Promise<CheckOutcome> {
  const answers: {
    modelId: string;
    usage: NonNullable<StoredConversation['turns'][number]['usage']>;
  }[] = [];
  const missing: string[] = [];
  for (const conversationId of session.conversationIds) {
    const response = await session.target.api('GET', `conversations/${conversationId}`);
    if (response.status !== 200) {
      missing.push(`GET conversations/${conversationId} → ${response.status}`);
      continue;
    }
    const { turns } = (await response.json()) as StoredConversation;
    for (const turn of turns) {
      if (turn.role !== 'assistant' || turn.status !== 'complete') continue;
      if (!turn.usage) missing.push(`conversation ${conversationId} turn ${turn.seq} has no usage`);
      else answers.push({ modelId: turn.modelId ?? '', usage: turn.usage });
    }
  }
  const mean = (pick: (usage: (typeof answers)[number]['usage']) => number | undefined) => {
    const values = answers
      .map((answer) => pick(answer.usage))
      .filter((value) => value !== undefined);
    return values.length === 0
      ? null
      : Math.round(values.reduce((sum, value) => sum + value, 0) / values.length);
  };
  const costs = answers.map((answer) => estimateCostUsd(answer.modelId, answer.usage));
  const priced = costs.filter((cost): cost is number => cost !== undefined);
  const totalCost = priced.reduce((sum, cost) => sum + cost, 0);
  const figures = {
    answers: answers.length,
    models: [...new Set(answers.map((answer) => answer.modelId))].join(' '),
    meanInputTokens: mean((usage) => usage.inputTokens),
    meanOutputTokens: mean((usage) => usage.outputTokens),
    meanCacheReadInputTokens: mean((usage) => usage.cacheReadInputTokens),
    meanCacheWriteInputTokens: mean((usage) => usage.cacheWriteInputTokens),
    meanTimeToFirstTokenMs: mean((usage) => usage.timeToFirstTokenMs),
    estimatedCostPerChatUsd:
      priced.length === 0 ? null : Number((totalCost / priced.length).toFixed(5)),
    estimatedCostOfRunUsd: Number(totalCost.toFixed(4)),
    unpricedAnswers: costs.length - priced.length,
  };
  const details = [
    'cost: functions/observability/model-prices.ts (on-demand list prices; cache reads and writes at their own prices; inputTokens is the uncached remainder with prompt caching)',
    ...missing,
  ];
  if (missing.length > 0 || answers.length === 0) {
    return {
      status: 'fail',
      summary: missing[0] ?? 'no complete answer to read usage from',
      figures,
      details,
    };
  }
  const inputOf = (usage: (typeof answers)[number]['usage']) =>
    usage.inputTokens + (usage.cacheReadInputTokens ?? 0) + (usage.cacheWriteInputTokens ?? 0);
  if (answers.some((answer) => answer.usage.outputTokens <= 0 || inputOf(answer.usage) <= 0)) {
    return {
      status: 'fail',
      summary: 'an answer stored zero input or output tokens',
      figures,
      details,
    };
  }
  return {
    status: 'pass',
    summary: `${answers.length} answers: ${figures.meanInputTokens} input and ${figures.meanOutputTokens} output tokens per chat on average, ≈ $${figures.estimatedCostPerChatUsd ?? '?'} per chat`,
    figures,
    details,
  };
}

/** Deletes every conversation of the run through the API and reads each back as 404. */
export async function cleanUpCheck(session: SuiteSession): Promise<CheckOutcome> {
  const problems: string[] = [];
  let deleted = 0;
  for (const conversationId of session.conversationIds) {
    const removed = await session.target.api('DELETE', `conversations/${conversationId}`);
    await removed.body?.cancel();
    if (removed.status !== 200 && removed.status !== 204) {
      problems.push(`DELETE conversations/${conversationId} → ${removed.status}`);
      continue;
    }
    const after = await session.target.api('GET', `conversations/${conversationId}`);
    await after.body?.cancel();
    if (after.status !== 404)
      problems.push(`GET conversations/${conversationId} after DELETE → ${after.status}`);
    else deleted++;
  }
  const figures = { conversations: session.conversationIds.size, deleted };
  return problems.length === 0
    ? {
        status: 'pass',
        summary: `all ${deleted} conversations of the run deleted through the API (404 after)`,
        figures,
        details: [],
      }
    : { status: 'fail', summary: problems[0] ?? '', figures, details: problems };
}

const round = (value: number) => Number(value.toFixed(3));
const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
