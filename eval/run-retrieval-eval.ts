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
 *   --search-type HYBRID|SEMANTIC|both   with --target aws (default: what the function uses on
 *                             the stack's vector store — HYBRID on OpenSearch Serverless, SEMANTIC
 *                             on S3 Vectors; both: one table each, on OpenSearch Serverless only:
 *                             SEMANTIC there is what an s3-vectors stack would search with, so the
 *                             two tables show what semantic-only search loses on these tickets).
 *                             Every table names the stack's vector store (its VectorStore output).
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
import {
  searchTypeOf,
  searchTypeProblem,
  type VectorStore,
} from '../functions/adapters/bedrock/vector-store-search.js';
import type { Retriever } from '../functions/chat/ports.js';
import { toRetrievalQuery } from '../functions/chat/retrieval.js';
import { type RerankingModelId, rerankingModelRegions } from '../lib/config.js';
import { stackOutputNames } from '../lib/service-desk-stack.js';
import { startLocalBedrockServer } from '../local/bedrock/start-local-bedrock-server.js';
import {
  readDeployedStack,
  requireOutput,
  SkipError,
  vectorStoreOf,
} from '../scripts/deployed-stack.js';
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
    'search-type': { type: 'string' },
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

type SearchType = 'HYBRID' | 'SEMANTIC';

interface RetrievalSource {
  /** A retriever of one search type, reranking with the given model ARN when there is one. */
  readonly retrieverFor: (searchType: SearchType, rerankingModelArn?: string) => Retriever;
  /** The search types to run, one table each. */
  readonly searchTypes: readonly SearchType[];
  readonly label: string;
  readonly vectorStore: VectorStore;
  readonly region?: string;
}

/** `--search-type` on a store: the function's own type by default; HYBRID where it exists only. */
function searchTypesFor(vectorStore: VectorStore, option: string | undefined): SearchType[] {
  const wanted: SearchType[] =
    option === undefined
      ? [searchTypeOf(vectorStore)]
      : option === 'both'
        ? ['HYBRID', 'SEMANTIC']
        : option === 'HYBRID' || option === 'SEMANTIC'
          ? [option]
          : [];
  if (wanted.length === 0) {
    throw new UsageError(`--search-type must be HYBRID, SEMANTIC or both, not ${option}`);
  }
  for (const searchType of wanted) {
    const problem = searchTypeProblem(searchType, vectorStore);
    if (problem) throw new UsageError(`--search-type ${option}: ${problem}`);
  }
  return wanted;
}

async function deployedRetriever(): Promise<RetrievalSource> {
  const stack = await readDeployedStack('EVAL_STACK_NAME', {
    outputs: values['knowledge-base-id'] === undefined,
  });
  const { region } = stack;
  const knowledgeBaseId =
    values['knowledge-base-id'] ?? requireOutput(stack, stackOutputNames.knowledgeBaseId);
  const vectorStore = vectorStoreOf(stack);
  const client = new BedrockAgentRuntimeClient({ region });
  return {
    retrieverFor: (searchType, rerankingModelArn) =>
      createKnowledgeBaseRetriever({
        client,
        knowledgeBaseId,
        vectorStore,
        searchType,
        rerankingModelArn,
      }),
    searchTypes: searchTypesFor(vectorStore, values['search-type']),
    label: `Knowledge Base ${knowledgeBaseId} (${region}, vector store ${vectorStore})`,
    vectorStore,
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
    if (values['search-type'] !== undefined) {
      throw new UsageError(
        '--search-type needs --target aws: the local Knowledge Base has only keyword search',
      );
    }
    source = {
      retrieverFor: () =>
        createKnowledgeBaseRetriever({ client, knowledgeBaseId: bedrock.knowledgeBaseId }),
      searchTypes: ['HYBRID'],
      label: 'local Knowledge Base (data/tickets, keyword search)',
      vectorStore: 'opensearch-serverless',
    };
  } else {
    throw new UsageError(`--target must be local or aws, not ${values.target}`);
  }
  try {
    const reports: Record<string, EvaluationReport> = {};
    const rerankingArn = rerankModes.includes('on')
      ? rerankingModelArn(source.region ?? '')
      : undefined;
    const aws = values.target === 'aws';
    for (const searchType of source.searchTypes) {
      for (const rerank of rerankModes) {
        const retriever = source.retrieverFor(
          searchType,
          rerank === 'on' ? rerankingArn : undefined,
        );
        for (const mode of expansionModes) {
          const expand = mode === 'on';
          const outcomes = await runRetrievalEvaluation(queries, retriever, {
            queryFor: (text) => toRetrievalQuery(text, { expand }),
          });
          const report = scoreOutcomes(outcomes);
          const reranked = values.rerank === undefined ? '' : `, reranking ${rerank}`;
          const searched = aws ? `, ${searchType}` : '';
          const key = [
            ...(source.searchTypes.length > 1 ? [searchType.toLowerCase()] : []),
            `expansion_${mode}`,
            ...(values.rerank === undefined ? [] : [`rerank_${rerank}`]),
          ].join('_');
          reports[key] = report;
          const model = rerank === 'on' ? ` (${rerankingArn?.split('/').at(-1)})` : '';
          const title = `Retrieval evaluation: ${source.label}${searched}, ${queries.length} queries${half}, glossary expansion ${mode}${reranked}${model}`;
          console.log(`${formatReport(report, title)}\n`);
          if (report.restricted.returned > 0) process.exitCode = 1;
        }
      }
    }
    if (values.json) {
      const document = { vectorStore: source.vectorStore, ...reports };
      await writeFile(values.json, `${JSON.stringify(document, null, 2)}\n`);
    }
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
