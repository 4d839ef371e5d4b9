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
 *   --desks a,b               retrieve as a staff member of these desks (ADR 0029; default:
 *                             `all` only): the report counts tickets of any other desk that
 *                             came back (target 0, else exit code 1)
 *   --half dev|holdout|all    only the queries of one half of the set (`evalHalf`: tune on
 *                             dev, check on holdout; default all)
 *   --from-feedback           the evaluation from use (issue #28, eval/feedback-evaluation.ts):
 *                             every solved inquiry of the insights store (its scrubbed text →
 *                             the tickets staff marked as its solution) is a labelled query,
 *                             scored beside the built-in set on the same Knowledge Base and
 *                             recorded (`recordEvaluationRun`) for the insights page. Locally the
 *                             Knowledge Base is `npm start`'s (TICKETS_DIR and the published
 *                             tickets under DATA_DIR/s3) and the store its DynamoDB data
 *                             (DATA_DIR/dynamodb, or --dynamodb-endpoint); with --target aws the
 *                             stack's. One table, with what the chat sends: --expansion on or off
 *                             (default: the target's setting, on locally, cdk.json
 *                             `queryExpansion` in AWS), one --search-type, --rerank on or off.
 *                             No solved inquiry yet: says so, records nothing, exits 0.
 *   --dynamodb-endpoint URL   with --from-feedback, locally: a running DynamoDB (`npm start`
 *                             prints it) instead of opening DATA_DIR/dynamodb
 *   --insights-table NAME     with --from-feedback: the insights table (default: the local
 *                             stack's, or the stack output InsightsTableName)
 *   --tenant ID               with --from-feedback: the deployment's TENANT_ID (default local
 *                             locally, default in AWS)
 *
 * Without AWS credentials, `--target aws` prints a SKIPPED line and exits 0.
 */
// Before the SDK is loaded: its "Node 22 from January 2027" notice is noise in a report.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
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
import { ALL_DESK, deskNameSchema } from '../functions/contract/desks.js';
import { functionSettings } from '../functions/settings/function-settings.js';
import {
  parseServiceDeskConfig,
  type RerankingModelId,
  rerankingModelRegions,
  settingsInContext,
} from '../lib/config.js';
import { stackOutputNames } from '../lib/deployed-stack-names.js';
import { LOCAL_KNOWLEDGE_BUCKET } from '../local/bedrock/local-bedrock-defaults.js';
import { startLocalBedrockServer } from '../local/bedrock/start-local-bedrock-server.js';
import { readLocalStackEnvironment } from '../local/local-stack-environment.js';
import {
  readDeployedStack,
  requireOutput,
  SkipError,
  vectorStoreOf,
} from '../scripts/deployed-stack.js';
import { openInsightsStore } from '../scripts/open-insights-store.js';
import {
  checkGapThreshold,
  formatFeedbackReport,
  formatGapThresholdCheck,
  toEvaluationRun,
  toFeedbackQueries,
} from './feedback-evaluation.js';
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
    // No default here: `--from-feedback` defaults to the target's own setting, the tables to both.
    expansion: { type: 'string' },
    rerank: { type: 'string' },
    'reranking-model': { type: 'string' },
    half: { type: 'string', default: 'all' },
    desks: { type: 'string', default: ALL_DESK },
    'from-feedback': { type: 'boolean', default: false },
    'dynamodb-endpoint': { type: 'string' },
    'insights-table': { type: 'string' },
    tenant: { type: 'string' },
  },
});

/** A wrong or impossible combination of options: said in one line, exit code 2. */
class UsageError extends Error {}

/** `--desks`: the desks the evaluation retrieves as, `all` among them. */
function desksOption(value: string): string[] {
  const desks = value
    .split(',')
    .map((desk) => desk.trim())
    .filter(Boolean);
  for (const desk of desks) {
    if (!deskNameSchema.safeParse(desk).success)
      throw new UsageError(`--desks: ${JSON.stringify(desk)} is not a desk name`);
  }
  return [...new Set([ALL_DESK, ...desks])];
}

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

/**
 * The local Knowledge Base, started in this process: over data/tickets for the built-in set
 * (what its labels were written against); with `asLocalStack`, over what `npm start` serves —
 * TICKETS_DIR and the tickets published into its local S3 — since solved inquiries may name those.
 */
async function localRetriever(
  options: { readonly asLocalStack?: boolean } = {},
): Promise<{ source: RetrievalSource; close: () => Promise<void> }> {
  const served: ReturnType<typeof localStackKnowledge> | undefined = options.asLocalStack
    ? localStackKnowledge()
    : undefined;
  const bedrock = await startLocalBedrockServer({ pacing: { minMs: 0, maxMs: 0 }, ...served });
  const client = new BedrockAgentRuntimeClient({
    endpoint: bedrock.agentRuntimeEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const folders = [served?.ticketsDir ?? 'data/tickets', served?.publishedDir].flatMap((folder) =>
    folder ? [relative(process.cwd(), folder) || '.'] : [],
  );
  return {
    source: {
      retrieverFor: () =>
        createKnowledgeBaseRetriever({ client, knowledgeBaseId: bedrock.knowledgeBaseId }),
      searchTypes: ['HYBRID'],
      label: `local Knowledge Base (${folders.join(' + ')}, keyword search)`,
      vectorStore: 'opensearch-serverless',
    },
    close: () => bedrock.close(),
  };
}

/** The ticket folders `npm start` serves (local/start-local-stack.ts), from the same variables. */
function localStackKnowledge(): {
  ticketsDir: string;
  publishedDir?: string;
  publishedUriPrefix?: string;
} {
  const environment = readLocalStackEnvironment(process.env);
  const bucket = environment.knowledgeBucket ?? LOCAL_KNOWLEDGE_BUCKET;
  const prefix = environment.knowledgeKeyPrefix ?? 'tickets/published/';
  const publishedDir = join(process.env.DATA_DIR || '.data', 's3', bucket, ...prefix.split('/'));
  return {
    ticketsDir: environment.ticketsDir,
    ...(existsSync(publishedDir) && {
      publishedDir,
      publishedUriPrefix: `s3://${bucket}/${prefix}`,
    }),
  };
}

/** `on|off` of a `--from-feedback` run: one table, with what the chat on that target sends. */
function singleMode(
  option: string,
  value: string | undefined,
  fallback: 'on' | 'off',
): 'on' | 'off' {
  if (value === undefined) return fallback;
  if (value === 'on' || value === 'off') return value;
  throw new UsageError(
    `--${option} with --from-feedback must be on or off (one recorded run), not ${value}`,
  );
}

/** `npm start`'s gap threshold: INSIGHTS_GAP_SCORE as the local function reads it, else the default. */
function localGapThreshold(): number {
  const text = process.env.INSIGHTS_GAP_SCORE;
  if (text === undefined || text === '') return functionSettings.insights.gapScore.default;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0 || value > 1) {
    throw new UsageError(`INSIGHTS_GAP_SCORE must be a score from 0 to 1, not ${text}`);
  }
  return value;
}

/**
 * `--from-feedback`: the solved inquiries of the insights store as labelled queries, scored beside
 * the built-in set on the same Knowledge Base with the same settings, and recorded as the run the
 * insights page shows.
 */
async function evaluateFromFeedback(): Promise<void> {
  const desks = desksOption(values.desks);
  const target = values.target;
  if (target !== 'local' && target !== 'aws') {
    throw new UsageError(`--target must be local or aws, not ${target}`);
  }
  if (values.half !== 'all') throw new UsageError('--half is for the built-in set alone');
  if (values['dynamodb-endpoint'] !== undefined && target === 'aws') {
    throw new UsageError('--dynamodb-endpoint is for --target local (a running DynamoDB)');
  }
  if (target === 'local' && values['search-type'] !== undefined) {
    throw new UsageError(
      '--search-type needs --target aws: the local Knowledge Base has only keyword search',
    );
  }
  if (values['search-type'] === 'both') {
    throw new UsageError(
      '--search-type with --from-feedback must be HYBRID or SEMANTIC (one recorded run)',
    );
  }
  const context = JSON.parse(readFileSync('cdk.json', 'utf8')).context ?? {};
  // What the chat sends on that target: `npm start` passes QUERY_EXPANSION on (default true);
  // a deployed function has cdk.json `queryExpansion` (default false).
  const targetExpansion =
    target === 'aws' ? context.queryExpansion === true : process.env.QUERY_EXPANSION !== 'false';
  const expand = singleMode('expansion', values.expansion, targetExpansion ? 'on' : 'off') === 'on';
  const rerank = singleMode('rerank', values.rerank, 'off') === 'on';
  if (rerank && target !== 'aws') {
    throw new UsageError('--rerank needs --target aws: the local Knowledge Base has no reranker');
  }
  // The threshold the target's chats count gaps by: a deployed function's `insightsGapScore`
  // (cdk.json, validated as `cdk deploy` would), `npm start`'s INSIGHTS_GAP_SCORE.
  const gapThreshold =
    target === 'aws'
      ? parseServiceDeskConfig(settingsInContext(context)).insightsGapScore
      : localGapThreshold();
  const tenantId = values.tenant ?? (target === 'aws' ? 'default' : 'local');
  const scope = { tenantId };

  const insights = await openInsightsStore({
    target,
    endpoint: values['dynamodb-endpoint'],
    table: values['insights-table'],
    stackNameVariable: 'EVAL_STACK_NAME',
  });
  try {
    const { queries, skipped } = toFeedbackQueries(await insights.store.listSolvedInquiries(scope));
    if (queries.length === 0) {
      console.log(
        `No solved inquiries yet in ${insights.label} (tenant ${tenantId}): nothing to evaluate, ` +
          'nothing recorded. Staff mark a ticket card as the solution ("この件で解決") to add one.',
      );
      return;
    }
    const { source, close } =
      target === 'aws'
        ? { source: await deployedRetriever(), close: async () => {} }
        : await localRetriever({ asLocalStack: true });
    try {
      if (source.searchTypes.length !== 1)
        throw new UsageError('one --search-type with --from-feedback');
      const [searchType = 'HYBRID'] = source.searchTypes;
      const retriever = source.retrieverFor(
        searchType,
        rerank ? rerankingModelArn(source.region ?? '') : undefined,
      );
      const queryFor = (text: string) => toRetrievalQuery(text, { expand });
      const builtIn = scoreOutcomes(
        await runRetrievalEvaluation(await loadEvalQueries(values.queries), retriever, {
          queryFor,
          desks,
        }),
      );
      const outcomes = await runRetrievalEvaluation(queries, retriever, { queryFor, desks });
      const run = toEvaluationRun({ outcomes, builtIn, target, ranAt: new Date() });
      await insights.store.recordEvaluationRun(scope, run);
      const searched = target === 'aws' ? `, ${searchType}` : '';
      const settings = `glossary expansion ${expand ? 'on' : 'off'}${rerank ? ', reranking on' : ''}`;
      console.log(
        formatFeedbackReport(
          run,
          outcomes,
          `Retrieval evaluation from use: ${source.label}${searched}, ${settings}`,
        ),
      );
      console.log('');
      console.log(
        formatGapThresholdCheck(
          checkGapThreshold(outcomes, gapThreshold),
          target === 'aws' ? 'cdk.json insightsGapScore' : 'INSIGHTS_GAP_SCORE',
        ),
      );
      console.log('');
      if (skipped > 0)
        console.log(`${skipped} solved inquiries without text or solution ticket were left out.`);
      console.log(
        `Recorded in ${insights.label} (tenant ${tenantId}): the insights page shows this run.`,
      );
      // Restricted tickets must never come back, whichever set asked (the Knowledge Base filter).
      const restricted =
        builtIn.restricted.returned +
        outcomes.reduce((sum, outcome) => sum + outcome.restrictedReturned.length, 0);
      console.log(
        `Restricted tickets returned: ${restricted} (target 0 ${restricted === 0 ? '✓' : '✗'}).`,
      );
      if (restricted > 0) process.exitCode = 1;
      // Nor tickets of a desk the run does not retrieve as (the Knowledge Base's desk filter).
      const otherDesks =
        builtIn.otherDesks.returned +
        outcomes.reduce((sum, outcome) => sum + outcome.otherDesksReturned.length, 0);
      console.log(
        `Tickets of other desks returned: ${otherDesks} (target 0 ${otherDesks === 0 ? '✓' : '✗'}).`,
      );
      if (otherDesks > 0) process.exitCode = 1;
    } finally {
      await close();
    }
  } finally {
    await insights.close();
  }
}

async function main(): Promise<void> {
  if (values.half !== 'all' && values.half !== 'dev' && values.half !== 'holdout') {
    throw new UsageError(`--half must be dev, holdout or all, not ${values.half}`);
  }
  if (values['from-feedback']) return evaluateFromFeedback();
  const desks = desksOption(values.desks);
  for (const option of ['dynamodb-endpoint', 'insights-table', 'tenant'] as const) {
    if (values[option] !== undefined) throw new UsageError(`--${option} needs --from-feedback`);
  }
  const expansionModes = modesOf('expansion', values.expansion ?? 'both');
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
    if (values['search-type'] !== undefined) {
      throw new UsageError(
        '--search-type needs --target aws: the local Knowledge Base has only keyword search',
      );
    }
    ({ source, close } = await localRetriever());
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
            desks,
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
          if (report.restricted.returned > 0 || report.otherDesks.returned > 0)
            process.exitCode = 1;
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
