import { BedrockAgentRuntimeClient } from '@aws-sdk/client-bedrock-agent-runtime';
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import middy from '@middy/core';
import { executionModeStreamifyResponse } from '@middy/core/StreamifyResponse';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { createBedrockChatModel } from '../adapters/bedrock/bedrock-chat-model.js';
import { createKnowledgeBaseRetriever } from '../adapters/bedrock/knowledge-base-retriever.js';
import {
  promptCachePolicyFor,
  withPromptCacheSupport,
} from '../adapters/bedrock/prompt-cache-support.js';
import { createDailyBudget, createIssueNumbers } from '../adapters/dynamodb/counters.js';
import { createDynamoDbConversationStore } from '../adapters/dynamodb/create-dynamodb-conversation-store.js';
import { createDynamoDbInsightsStore } from '../adapters/dynamodb/insights-store.js';
import { createSyncBacklog } from '../adapters/dynamodb/sync-backlog.js';
import type { DailyBudget } from '../chat/daily-budget.js';
import type { Log } from '../chat/log.js';
import {
  type ChatModel,
  type ConversationStore,
  defaultChatConfig,
  type Owner,
  type Retriever,
} from '../chat/ports.js';
import type { InsightsStore, TicketCatalog } from '../insights/ports.js';
import { createInsightsRecorder } from '../insights/record-insights.js';
import type { IssueNumbers, KnowledgeDocuments } from '../knowledge/ports.js';
import { withPrices } from '../observability/model-prices.js';
import { createObservability, ownerHashOf } from '../observability/telemetry.js';
import { createChatRoute } from './chat-route.js';
import { createConversationRoutes } from './conversation-routes.js';
import { type FunctionConfig, guardrailOf } from './function-config.js';
import { createHandoffRoute } from './handoff-routes.js';
import {
  type ApiRequest,
  type HttpResponse,
  jsonResponse,
  rawBodyOf,
  toErrorResponseBody,
} from './http.js';
import { createInsightsRoutes } from './insights-routes.js';
import { createKnowledgeRoutes } from './knowledge-routes.js';
import { createMailDraftRoutes } from './mail-draft-routes.js';
import {
  type AccessTokenVerifier,
  createCognitoVerifier,
  createOwnerResolver,
} from './resolve-owner.js';
import { createRouteTable, dispatch, matchRoute, type RouteMatch } from './routes.js';

/** Replacements for tests; production passes none and gets the AWS adapters. */
export interface HandlerOverrides {
  readonly store?: ConversationStore;
  readonly budget?: DailyBudget;
  readonly retriever?: Retriever;
  readonly model?: ChatModel;
  readonly verifier?: AccessTokenVerifier;
  readonly documents?: KnowledgeDocuments;
  readonly issueNumbers?: IssueNumbers;
  /** The insights aggregates; production: the DynamoDB store when INSIGHTS_TABLE is set. */
  readonly insights?: InsightsStore;
  /** The Knowledge Base's ticket set; production: its data source's listing, when it has one. */
  readonly catalog?: TicketCatalog;
  readonly now?: () => Date;
}

/**
 * Wiring only: the API (`createApi`) under middy in response-streaming mode, which writes the
 * response's prelude and body to the runtime's stream.
 */
export function createHandler(config: FunctionConfig, overrides: HandlerOverrides = {}) {
  return middy<APIGatewayProxyEventV2, HttpResponse>({
    executionMode: executionModeStreamifyResponse,
  }).handler(createApi(config, overrides));
}

/**
 * The API as a function from a Function URL event to a response, without the Lambda runtime:
 * AWS clients and adapters created once per container, the routes, request logging and tracing.
 * Errors before the first byte become a status and a JSON body. Tests call it in process.
 */
export function createApi(
  config: FunctionConfig,
  overrides: HandlerOverrides = {},
): (event: APIGatewayProxyEventV2, context: Context) => Promise<HttpResponse> {
  const region = config.AWS_REGION;
  const observability = createObservability({
    logLevel: config.LOG_LEVEL,
    metrics: config.METRICS,
    tracing: config.POWERTOOLS_TRACE_ENABLED,
    prices: withPrices(config.MODEL_PRICES),
    modelId: config.MODEL_ID,
  });
  const { tracing } = observability;
  const documents = DynamoDBDocumentClient.from(
    tracing.captureClient(new DynamoDBClient({ region, endpoint: config.DYNAMODB_ENDPOINT })),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  const tables = { conversations: config.CONVERSATIONS_TABLE, turns: config.TURNS_TABLE };
  const store =
    overrides.store ??
    createDynamoDbConversationStore({
      client: documents,
      tables,
      retentionDays: config.RETENTION_DAYS,
      cacheMaxBytes: config.TURN_CACHE_MAX_BYTES,
    });
  const budget = overrides.budget ?? createDailyBudget({ documents, tables });
  const insightsStore =
    overrides.insights ??
    (config.INSIGHTS_TABLE
      ? createDynamoDbInsightsStore({
          documents,
          tableName: config.INSIGHTS_TABLE,
          retentionDays: config.RETENTION_DAYS,
        })
      : undefined);
  const insights =
    insightsStore &&
    createInsightsRecorder({
      store: insightsStore,
      estimateCostUsd: (report) => observability.estimateCostUsd(report),
      gapScoreThreshold: config.INSIGHTS_GAP_SCORE,
      examples: config.INSIGHTS_EXAMPLES,
      scrubSettings: config.PERSONAL_DATA_SETTINGS,
      ownerHash: ownerHashOf,
      log: observability.log,
      writeFailed: (operation) => observability.insightsWriteFailed(operation),
      ...(overrides.now ? { now: overrides.now } : {}),
    });
  const retriever =
    overrides.retriever ??
    createKnowledgeBaseRetriever({
      client: tracing.captureClient(
        new BedrockAgentRuntimeClient({ region, endpoint: config.BEDROCK_AGENT_RUNTIME_ENDPOINT }),
      ),
      knowledgeBaseId: config.KNOWLEDGE_BASE_ID,
      vectorStore: config.VECTOR_STORE,
      searchType: config.SEARCH_TYPE,
      rerankingModelArn: config.RERANKING_MODEL_ARN,
    });
  const model =
    overrides.model ??
    tracing.traceChatModel(
      createBedrockChatModel({
        client: tracing.captureClient(
          new BedrockRuntimeClient({ region, endpoint: config.BEDROCK_RUNTIME_ENDPOINT }),
        ),
        modelId: config.MODEL_ID,
        fineGrainedToolStreaming: config.FINE_GRAINED_TOOL_STREAMING,
        guardrail: guardrailOf(config),
      }),
    );
  const catalog = overrides.catalog ?? ticketCatalogFor(config, tracing, observability.log);
  const resolveOwner = createOwnerResolver(
    config.AUTH_MODE === 'local'
      ? {
          mode: 'local',
          tenantId: config.TENANT_ID,
          knowledgeEditors: config.KNOWLEDGE_EDITORS,
          serviceDeskLeads: config.SERVICE_DESK_LEADS,
        }
      : {
          mode: 'cognito',
          tenantId: config.TENANT_ID,
          knowledgeEditorGroup: config.KNOWLEDGE_EDITOR_GROUP,
          serviceDeskLeadGroup: config.SERVICE_DESK_LEAD_GROUP,
          verifier:
            overrides.verifier ??
            createCognitoVerifier(
              config.COGNITO_USER_POOL_ID ?? '',
              config.COGNITO_CLIENT_ID ?? '',
            ),
        },
  );
  const table = createRouteTable({
    chat: createChatRoute({
      telemetry: observability.telemetry,
      log: observability.log,
      budget,
      store,
      retriever,
      model,
      ...(insights ? { insights } : {}),
      heartbeatMs: config.HEARTBEAT_MS,
      tokenBatchMs: config.TOKEN_BATCH_MS,
      padding: { mode: config.STREAM_PADDING, bytes: config.STREAM_PADDING_BYTES },
      now: overrides.now ?? (() => new Date()),
      config: {
        ...defaultChatConfig,
        numberOfResults: config.NUMBER_OF_RESULTS,
        dailyTokenBudget: config.DAILY_TOKEN_BUDGET,
        queryExpansion: config.QUERY_EXPANSION,
        maxTokens: config.MAX_TOKENS,
        archiveBudget: config.ARCHIVE_BUDGET_CHARS,
        stopPollMs: config.STOP_POLL_MS,
        generationLeaseMs: config.GENERATION_LEASE_MS,
        modelId: config.MODEL_ID,
        promptCache: promptCachePolicyFor(
          config.MODEL_ID,
          config.PROMPT_CACHING,
          withPromptCacheSupport(config.PROMPT_CACHE_MODELS),
        ),
        allowedLinkDomains: config.ALLOWED_LINK_DOMAINS,
      },
    }),
    knowledge: createKnowledgeRoutes({
      store,
      retriever,
      model,
      documents: overrides.documents ?? knowledgeDocumentsFor(config, tracing),
      issueNumbers:
        overrides.issueNumbers ??
        createIssueNumbers({ documents, tables }, config.KNOWLEDGE_FIRST_ISSUE_ID),
      syncBacklog: createSyncBacklog({ documents, tables }),
      config: {
        dailyTokenBudget: config.DAILY_TOKEN_BUDGET,
        modelId: config.MODEL_ID,
        remainingTimeReserveMs: defaultChatConfig.remainingTimeReserveMs,
        allowedLinkDomains: config.ALLOWED_LINK_DOMAINS,
        ticketCategories: config.TICKET_CATEGORIES,
      },
      budget,
      heartbeatMs: config.HEARTBEAT_MS,
      padding: { mode: config.STREAM_PADDING, bytes: config.STREAM_PADDING_BYTES },
      now: overrides.now ?? (() => new Date()),
      scrubSettings: config.PERSONAL_DATA_SETTINGS,
      recorded: (report) => {
        observability.knowledgeRecorded(report);
        // Not awaited: the route's report is synchronous; the recorder bounds and logs itself.
        void insights?.knowledgeRecorded(report);
      },
      log: observability.log,
      ...(insightsStore ? { gapExamples: insightsStore } : {}),
    }),
    conversations: createConversationRoutes(store, {
      now: overrides.now,
      feedbackRecorded: (report) => observability.feedbackRecorded(report),
      ...(insights ? { insights } : {}),
    }),
    insights: createInsightsRoutes({
      insights: insightsStore ?? withoutInsightsStore,
      now: overrides.now ?? (() => new Date()),
      examplesKept: config.INSIGHTS_EXAMPLES,
      scrubSettings: config.PERSONAL_DATA_SETTINGS,
      ...(catalog ? { catalog } : {}),
    }),
    handoff: createHandoffRoute({
      store,
      model,
      config: {
        dailyTokenBudget: config.DAILY_TOKEN_BUDGET,
        modelId: config.MODEL_ID,
        remainingTimeReserveMs: defaultChatConfig.remainingTimeReserveMs,
      },
      budget,
      heartbeatMs: config.HEARTBEAT_MS,
      padding: { mode: config.STREAM_PADDING, bytes: config.STREAM_PADDING_BYTES },
      now: overrides.now ?? (() => new Date()),
      log: observability.log,
    }),
    mailDrafts: createMailDraftRoutes({
      store,
      model,
      config: {
        dailyTokenBudget: config.DAILY_TOKEN_BUDGET,
        modelId: config.MODEL_ID,
        remainingTimeReserveMs: defaultChatConfig.remainingTimeReserveMs,
        allowedLinkDomains: config.ALLOWED_LINK_DOMAINS,
      },
      budget,
      heartbeatMs: config.HEARTBEAT_MS,
      padding: { mode: config.STREAM_PADDING, bytes: config.STREAM_PADDING_BYTES },
      now: overrides.now ?? (() => new Date()),
      recorded: (report) => observability.mailDraftRecorded(report),
      ...(insights ? { insights } : {}),
      log: observability.log,
    }),
  });

  const respond = async (
    event: APIGatewayProxyEventV2,
    context: Context,
    method: string,
    match: RouteMatch,
  ): Promise<HttpResponse> => {
    const startedAt = performance.now();
    const outcome = (status: number, extra: { owner?: Owner; errorCode?: string } = {}) => ({
      requestId: context.awsRequestId,
      method,
      route: match.name,
      status,
      durationMs: performance.now() - startedAt,
      conversationId: match.parameters.id,
      ...extra,
    });
    let owner: Owner | undefined;
    try {
      const caller = await resolveOwner(event.headers ?? {});
      owner = caller.owner;
      const request: ApiRequest = {
        canPublishKnowledge: caller.canPublishKnowledge,
        canViewInsights: caller.canViewInsights,
        method,
        path: event.rawPath,
        headers: event.headers ?? {},
        query: event.queryStringParameters ?? {},
        rawBody: rawBodyOf(event),
        owner,
        remainingTimeMs: () => context.getRemainingTimeInMillis(),
      };
      const response = await dispatch(match, request);
      observability.requestFinished(outcome(response.statusCode, { owner }));
      return response;
    } catch (error) {
      const { statusCode, body, headers } = toErrorResponseBody(error);
      const failed = outcome(statusCode, { owner, errorCode: body.error.code });
      if (statusCode >= 500) observability.requestFailed(failed, error);
      else observability.requestFinished(failed);
      return jsonResponse(statusCode, body, headers);
    }
  };
  // With tracing on, each request is a subsegment that lasts until its body's last byte.
  return (event, context) => {
    const method = event.requestContext.http.method.toUpperCase();
    const match = matchRoute(table, method, event.rawPath);
    return tracing.traceRequest(`## ${method} ${match.name.replace('{id}', ':id')}`, () =>
      respond(event, context, method, match),
    );
  };
}

/**
 * The document bucket and data source of knowledge capture, when the deployment has them,
 * loaded on first use: the S3 and Bedrock Agent clients are a fifth of the bundle and only a
 * publish needs them, so no cold start evaluates them (bench/chat: module init).
 */
function knowledgeDocumentsFor(
  config: FunctionConfig,
  tracing: { captureClient<Client extends object>(client: Client): Client },
): KnowledgeDocuments | undefined {
  const bucket = config.KNOWLEDGE_BUCKET;
  const dataSourceId = config.KNOWLEDGE_DATA_SOURCE_ID;
  if (!bucket || !dataSourceId) return undefined;
  let loaded: Promise<KnowledgeDocuments> | undefined;
  const load = () => {
    loaded ??= import('../adapters/bedrock/knowledge-base-documents.js').then((adapter) =>
      adapter.createKnowledgeBaseDocumentsWithClients(
        {
          region: config.AWS_REGION,
          s3Endpoint: config.S3_ENDPOINT,
          agentEndpoint: config.BEDROCK_AGENT_ENDPOINT,
          capture: (client) => tracing.captureClient(client),
        },
        {
          bucket,
          keyPrefix: config.KNOWLEDGE_KEY_PREFIX,
          knowledgeBaseId: config.KNOWLEDGE_BASE_ID,
          dataSourceId,
        },
      ),
    );
    return loaded;
  };
  return {
    write: async (files) => (await load()).write(files),
    remove: async (names) => (await load()).remove(names),
    startSync: async () => (await load()).startSync(),
    uploadedCategories: async () => (await load()).uploadedCategories(),
  };
}

/**
 * The Knowledge Base's ticket catalog (issue #28), when the function knows its data source
 * (`KNOWLEDGE_DATA_SOURCE_ID`: a stack that created the Knowledge Base or was given its data
 * source); an existing Knowledge Base without one has none. Loaded on a lead's first insights read,
 * like the capture adapter: no cold start evaluates the Bedrock Agent client for it. The adapter
 * caches one listing per instance for 15 minutes.
 */
function ticketCatalogFor(
  config: FunctionConfig,
  tracing: { captureClient<Client extends object>(client: Client): Client },
  log: Log,
): TicketCatalog | undefined {
  const dataSourceId = config.KNOWLEDGE_DATA_SOURCE_ID;
  if (!dataSourceId) return undefined;
  let loaded: Promise<TicketCatalog> | undefined;
  return {
    issueIds: async () => {
      loaded ??= import('../adapters/bedrock/knowledge-base-ticket-catalog.js').then((adapter) =>
        adapter.createKnowledgeBaseTicketCatalogWithClient(
          {
            region: config.AWS_REGION,
            agentEndpoint: config.BEDROCK_AGENT_ENDPOINT,
            capture: (client) => tracing.captureClient(client),
          },
          { knowledgeBaseId: config.KNOWLEDGE_BASE_ID, dataSourceId, log },
        ),
      );
      return (await loaded).issueIds();
    },
  };
}

/**
 * A function without `INSIGHTS_TABLE` (a deployment older than the table) has no figures to
 * show: a lead's read is a 500 with the reason in the log, not an empty page that would look
 * like a quiet month.
 */
const withoutInsightsStore: Pick<InsightsStore, 'readInsights'> = {
  readInsights: () => Promise.reject(new Error('INSIGHTS_TABLE is not set: no insights store')),
};
