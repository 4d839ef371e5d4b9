import middy from '@middy/core';
import { executionModeStreamifyResponse } from '@middy/core/StreamifyResponse';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import {
  promptCachePolicyFor,
  withPromptCacheSupport,
} from '../adapters/bedrock/prompt-cache-support.js';
import { createChatRoute } from '../chat/chat-route.js';
import { createConversationRoutes } from '../chat/conversation-routes.js';
import { defaultChatConfig } from '../chat/ports.js';
import { createHandoffRoute } from '../handoff/handoff-routes.js';
import { createInsightsRoutes } from '../insights/insights-routes.js';
import { createInsightsRecorder } from '../insights/record-insights.js';
import { createKnowledgeRoutes } from '../knowledge/knowledge-routes.js';
import { createMailDraftRoutes } from '../mail-draft/mail-draft-routes.js';
import { withPrices } from '../observability/model-prices.js';
import { createObservability, ownerHashOf } from '../observability/telemetry.js';
import { createAwsAdapters, type HandlerOverrides } from './aws-adapters.js';
import type { FunctionConfig } from './function-config.js';
import type { HttpResponse } from './http.js';
import { withoutInsightsStore } from './on-demand-adapters.js';
import { createCognitoVerifier, createOwnerResolver } from './resolve-owner.js';
import type { RouteContext } from './route-context.js';
import { createRouteTable } from './routes.js';
import { createRequestServer } from './serve-request.js';

/** Wiring only: the API (`createApi`) under middy in response-streaming mode. */
export function createHandler(config: FunctionConfig, overrides: HandlerOverrides = {}) {
  return middy<APIGatewayProxyEventV2, HttpResponse>({
    executionMode: executionModeStreamifyResponse,
  }).handler(createApi(config, overrides));
}

/**
 * The API as a function from a Function URL event to a response, without the Lambda runtime:
 * the adapters created once per container (`aws-adapters.ts`), one route context every route
 * group receives, the route table, and the request server (`serve-request.ts`: the caller, the
 * request log, errors before the first byte). Tests call it in process.
 */
export function createApi(
  config: FunctionConfig,
  overrides: HandlerOverrides = {},
): (event: APIGatewayProxyEventV2, context: Context) => Promise<HttpResponse> {
  const observability = createObservability({
    logLevel: config.LOG_LEVEL,
    metrics: config.METRICS,
    tracing: config.POWERTOOLS_TRACE_ENABLED,
    prices: withPrices(config.MODEL_PRICES),
    modelId: config.MODEL_ID,
  });
  const { tracing, log } = observability;
  const adapters = createAwsAdapters(config, overrides, tracing, log);
  const { store, model, retriever, insightsStore } = adapters;
  const context: RouteContext = {
    log,
    now: overrides.now ?? (() => new Date()),
    budget: adapters.budget,
    config: {
      dailyTokenBudget: config.DAILY_TOKEN_BUDGET,
      modelId: config.MODEL_ID,
      remainingTimeReserveMs: defaultChatConfig.remainingTimeReserveMs,
    },
    stream: {
      heartbeatMs: config.HEARTBEAT_MS,
      tokenBatchMs: config.TOKEN_BATCH_MS,
      padding: { mode: config.STREAM_PADDING, bytes: config.STREAM_PADDING_BYTES },
    },
  };
  const insights =
    insightsStore &&
    createInsightsRecorder({
      store: insightsStore,
      estimateCostUsd: (report) => observability.estimateCostUsd(report),
      gapScoreThreshold: config.INSIGHTS_GAP_SCORE,
      examples: config.INSIGHTS_EXAMPLES,
      scrubSettings: config.PERSONAL_DATA_SETTINGS,
      ownerHash: ownerHashOf,
      log,
      writeFailed: (operation) => observability.insightsWriteFailed(operation),
      now: context.now,
    });
  const withInsights = insights ? { insights } : {};
  const allowedLinkDomains = config.ALLOWED_LINK_DOMAINS;
  const chatConfig = {
    ...defaultChatConfig,
    ...context.config,
    numberOfResults: config.NUMBER_OF_RESULTS,
    queryExpansion: config.QUERY_EXPANSION,
    maxTokens: config.MAX_TOKENS,
    archiveBudget: config.ARCHIVE_BUDGET_CHARS,
    stopPollMs: config.STOP_POLL_MS,
    generationLeaseMs: config.GENERATION_LEASE_MS,
    promptCache: promptCachePolicyFor(
      config.MODEL_ID,
      config.PROMPT_CACHING,
      withPromptCacheSupport(config.PROMPT_CACHE_MODELS),
    ),
    allowedLinkDomains,
  };
  const table = createRouteTable({
    chat: createChatRoute(context, {
      store,
      retriever,
      model,
      config: chatConfig,
      telemetry: observability.telemetry,
      ...withInsights,
    }),
    knowledge: createKnowledgeRoutes(context, {
      store,
      retriever,
      model,
      issueNumbers: adapters.issueNumbers,
      ...(adapters.documents ? { documents: adapters.documents } : {}),
      syncBacklog: adapters.syncBacklog,
      config: { allowedLinkDomains, ticketCategories: config.TICKET_CATEGORIES },
      scrubSettings: config.PERSONAL_DATA_SETTINGS,
      recorded: (report) => {
        observability.knowledgeRecorded(report);
        // Not awaited: the route's report is synchronous; the recorder bounds and logs itself.
        void insights?.knowledgeRecorded(report);
      },
      ...(insightsStore ? { gapExamples: insightsStore } : {}),
    }),
    conversations: createConversationRoutes(context, store, {
      feedbackRecorded: (report) => observability.feedbackRecorded(report),
      ...withInsights,
    }),
    insights: createInsightsRoutes(context, {
      insights: insightsStore ?? withoutInsightsStore,
      examplesKept: config.INSIGHTS_EXAMPLES,
      ...(adapters.catalog ? { catalog: adapters.catalog } : {}),
    }),
    handoff: createHandoffRoute(context, { store, model, config: { allowedLinkDomains } }),
    mailDrafts: createMailDraftRoutes(context, {
      store,
      model,
      config: { allowedLinkDomains },
      recorded: (report) => observability.mailDraftRecorded(report),
      ...withInsights,
    }),
  });
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
  return createRequestServer({ table, resolveOwner, observability });
}
