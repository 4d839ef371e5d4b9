/**
 * `npm run eval` — the retrieval evaluation (eval/retrieval-evaluation.ts) against the local
 * Knowledge Base (default) or a deployed one (`-- --target aws`).
 *
 * Options:
 *   --target local|aws        where to retrieve (default local: the local Bedrock endpoint
 *                             started in this process over data/tickets)
 *   --knowledge-base-id ID    with --target aws; default: the stack output KnowledgeBaseId
 *                             (stack EVAL_STACK_NAME, cdk.json `stackName`, or ServiceDeskAssistant)
 *   --queries PATH            default data/eval/retrieval-queries.jsonl
 *   --json PATH               also write the report as JSON
 *   --search-type HYBRID|SEMANTIC   with --target aws (default HYBRID, as the function)
 *   --expansion on|off|both   the glossary expansion of the retrieval query (default both:
 *                             one table each, to see what the expansion buys on this target)
 *   --rerank on|off|both      with --target aws: Retrieve's reranking configuration on each
 *                             query (default off); both: one table each. The local Knowledge
 *                             Base has no reranker, so locally this is an error.
 *   --reranking-model ID      with --rerank: amazon.rerank-v1:0 or cohere.rerank-v3-5:0
 *                             (default: cdk.json `rerankingModelId`, else the first one the
 *                             region offers)
 *   --half dev|holdout|all    only the queries of one half of the set (`evalHalf`: tune on
 *                             dev, check on holdout; default all)
 *
 * Without AWS credentials, `--target aws` prints a SKIPPED line and exits 0.
 */
// Before the SDK is loaded: its "Node 22 from January 2027" notice is noise in a report.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { BedrockAgentRuntimeClient } from '@aws-sdk/client-bedrock-agent-runtime';
import { createKnowledgeBaseRetriever } from '../functions/adapters/bedrock/knowledge-base-retriever.js';
import type { Retriever } from '../functions/chat/ports.js';
import { toRetrievalQuery } from '../functions/chat/retrieval-query.js';
import { type RerankingModelId, rerankingModelRegions } from '../lib/config.js';
import { stackOutputNames } from '../lib/service-desk-stack.js';
import { startLocalBedrockServer } from '../local/bedrock/start-local-bedrock-server.js';
import { readDeployedStack, requireOutput, SkipError } from '../scripts/deployed-stack.js';
import {
  type EvaluationReport,
  evalHalf,
  formatReport,
  loadEvalQueries,
  runRetrievalEvaluation,
  scoreOutcomes,
} from './retrieval-evaluation.js';

const { values } = parseArgs({
  options: {
    target: { type: 'string', default: 'local' },
    'knowledge-base-id': { type: 'string' },
    queries: { type: 'string', default: 'data/eval/retrieval-queries.jsonl' },
    json: { type: 'string' },
    'search-type': { type: 'string', default: 'HYBRID' },
    expansion: { type: 'string', default: 'both' },
    rerank: { type: 'string' },
    'reranking-model': { type: 'string' },
    half: { type: 'string', default: 'all' },
  },
});

/** A wrong or impossible combination of options: said in one line, exit code 2. */
class UsageError extends Error {}

/** `on|off|both` as the list of modes to run. */
function modesOf(option: string, value: string): ('off' | 'on')[] {
  if (value === 'both') return ['off', 'on'];
  if (value === 'on' || value === 'off') return [value];
  throw new UsageError(`--${option} must be on, off or both, not ${value}`);
}

/**
 * The reranker's foundation-model ARN for `--rerank`, checked against the regions that offer it
 * (the same table the deploy setting is validated with).
 */
function rerankingModelArn(region: string): string {
  const configured = JSON.parse(readFileSync('cdk.json', 'utf8')).context?.rerankingModelId;
  const offered = (Object.keys(rerankingModelRegions) as RerankingModelId[]).filter((id) =>
    (rerankingModelRegions[id] as readonly string[]).includes(region),
  );
  const modelId = values['reranking-model'] ?? (configured || offered[0]);
  if (!modelId) throw new UsageError(`no Bedrock reranker model is offered in ${region}`);
  if (!offered.includes(modelId as RerankingModelId)) {
    throw new UsageError(
      `--reranking-model ${modelId} is not offered in ${region} (offered there: ${offered.join(', ') || 'none'})`,
    );
  }
  return `arn:aws:bedrock:${region}::foundation-model/${modelId}`;
}

interface RetrievalSource {
  /** A retriever, reranking with the given model ARN when there is one. */
  readonly retrieverFor: (rerankingModelArn?: string) => Retriever;
  readonly label: string;
  readonly region?: string;
}

async function deployedRetriever(): Promise<RetrievalSource> {
  const stack = await readDeployedStack('EVAL_STACK_NAME', {
    outputs: values['knowledge-base-id'] === undefined,
  });
  const { region } = stack;
  const knowledgeBaseId =
    values['knowledge-base-id'] ?? requireOutput(stack, stackOutputNames.knowledgeBaseId);
  const searchType = values['search-type'] === 'SEMANTIC' ? 'SEMANTIC' : 'HYBRID';
  const client = new BedrockAgentRuntimeClient({ region });
  return {
    retrieverFor: (rerankingModelArn) =>
      createKnowledgeBaseRetriever({ client, knowledgeBaseId, searchType, rerankingModelArn }),
    label: `Knowledge Base ${knowledgeBaseId} (${region}, ${searchType})`,
    region,
  };
}

async function main(): Promise<void> {
  if (values.half !== 'all' && values.half !== 'dev' && values.half !== 'holdout') {
    throw new UsageError(`--half must be dev, holdout or all, not ${values.half}`);
  }
  const expansionModes = modesOf('expansion', values.expansion);
  const rerankModes = modesOf('rerank', values.rerank ?? 'off');
  if (values.rerank !== undefined && values.target !== 'aws') {
    throw new UsageError(
      '--rerank needs --target aws: reranking is done by a Bedrock reranker model in a deployed ' +
        'Knowledge Base; the local one has none (its Retrieve refuses a rerankingConfiguration).',
    );
  }
  const queries = (await loadEvalQueries(values.queries)).filter(
    (query) => values.half === 'all' || evalHalf(query.id) === values.half,
  );
  const half = values.half === 'all' ? '' : `, ${values.half} half`;
  let close = async () => {};
  let source: RetrievalSource;
  if (values.target === 'aws') {
    source = await deployedRetriever();
  } else if (values.target === 'local') {
    const bedrock = await startLocalBedrockServer({ pacing: { minMs: 0, maxMs: 0 } });
    close = () => bedrock.close();
    const client = new BedrockAgentRuntimeClient({
      endpoint: bedrock.agentRuntimeEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    source = {
      retrieverFor: () =>
        createKnowledgeBaseRetriever({ client, knowledgeBaseId: bedrock.knowledgeBaseId }),
      label: 'local Knowledge Base (data/tickets)',
    };
  } else {
    throw new UsageError(`--target must be local or aws, not ${values.target}`);
  }
  try {
    const reports: Record<string, EvaluationReport> = {};
    const rerankingArn = rerankModes.includes('on')
      ? rerankingModelArn(source.region ?? '')
      : undefined;
    for (const rerank of rerankModes) {
      const retriever = source.retrieverFor(rerank === 'on' ? rerankingArn : undefined);
      for (const mode of expansionModes) {
        const expand = mode === 'on';
        const outcomes = await runRetrievalEvaluation(queries, retriever, {
          queryFor: (text) => toRetrievalQuery(text, { expand }),
        });
        const report = scoreOutcomes(outcomes);
        const reranked = values.rerank === undefined ? '' : `, reranking ${rerank}`;
        reports[`expansion_${mode}${values.rerank === undefined ? '' : `_rerank_${rerank}`}`] =
          report;
        const model = rerank === 'on' ? ` (${rerankingArn?.split('/').at(-1)})` : '';
        const title = `Retrieval evaluation: ${source.label}, ${queries.length} queries${half}, glossary expansion ${mode}${reranked}${model}`;
        console.log(`${formatReport(report, title)}\n`);
        if (report.restricted.returned > 0) process.exitCode = 1;
      }
    }
    if (values.json) await writeFile(values.json, `${JSON.stringify(reports, null, 2)}\n`);
  } finally {
    await close();
  }
}

main().catch((error: unknown) => {
  if (error instanceof SkipError) {
    console.log(`SKIPPED: retrieval evaluation against AWS — ${error.message}`);
    return;
  }
  if (error instanceof UsageError) {
    console.error(`npm run eval: ${error.message}`);
    process.exitCode = 2;
    return;
  }
  console.error(error);
  process.exitCode = 1;
});
