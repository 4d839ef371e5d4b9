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
import { languageOf, peopleNamedIn, scrubPersonalData } from '../knowledge/personal-data-scrub.js';
import { ownerAsPerson } from '../knowledge/ticket-draft.js';
import { createMailDraftRoutes } from '../mail-draft/mail-draft-routes.js';
import { withPrices } from '../observability/model-prices.js';
import { createObservability, ownerHashOf } from '../observability/telemetry.js';
import type { FunctionConfig } from '../settings/function-settings.js';
import { readActiveSurges } from '../surges/active-surges.js';
import { createKnownIssueRoutes } from '../surges/known-issue-routes.js';
import { createSurgeCheck } from '../surges/surge-check.js';
import { createAwsAdapters, type HandlerOverrides } from './aws-adapters.js';
import type { HttpResponse } from './http.js';
import { withoutInsightsStore } from './on-demand-adapters.js';
import { createCognitoVerifier, createOwnerResolver } from './resolve-owner.js';
import type { RouteContext } from './route-context.js';
import { API_TIMINGS } from './route-context.js';
import { createRouteTable } from './routes.js';
import { createRequestServer } from './serve-request.js';

const noSurges = { listTopics: async () => [] };

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
    logLevel: config.observability.logLevel,
    metrics: config.observability.metrics,
    tracing: config.observability.tracing,
    prices: withPrices(config.model.prices),
    modelId: config.model.id,
  });
  const { tracing, log } = observability;
  const timings = { ...API_TIMINGS, ...overrides.timings };
  const now = overrides.now ?? (() => new Date());
  const adapters = createAwsAdapters(config, overrides, tracing, log, now);
  const { store, model, retriever, insightsStore } = adapters;
  const context: RouteContext = {
    log,
    now,
    budget: adapters.budget,
    config: {
      dailyTokenBudget: config.model.dailyTokenBudget,
      modelId: config.model.id,
      remainingTimeReserveMs: defaultChatConfig.remainingTimeReserveMs,
    },
    stream: {
      heartbeatMs: timings.heartbeatMs,
      padding: { mode: config.stream.padding, bytes: config.stream.paddingBytes },
    },
  };
  const insights =
    insightsStore &&
    createInsightsRecorder({
      store: insightsStore,
      estimateCostUsd: (report) => observability.estimateCostUsd(report),
      gapScoreThreshold: config.insights.gapScore,
      examples: config.insights.examples,
      scrubSettings: config.knowledge.personalDataSettings,
      ownerHash: ownerHashOf,
      log,
      writeFailed: (operation) => observability.insightsWriteFailed(operation),
      now: context.now,
    });
  const withInsights = insights ? { insights } : {};
  const surgeSettings = config.surges;
  const surges =
    adapters.surges &&
    createSurgeCheck({
      counter: adapters.surges.counter,
      knownIssues: adapters.surges.knownIssues,
      alerts: adapters.surges.alerts,
      minStaff: surgeSettings.minStaff,
      windowMinutes: surgeSettings.windowMinutes,
      // The same scrub as a gap example (record-insights.ts): leads see examples alike.
      ...(config.insights.examples
        ? {
            scrubExample: (owner, text) =>
              scrubPersonalData(text, {
                ...config.knowledge.personalDataSettings,
                people: [ownerAsPerson(owner), ...peopleNamedIn(text)],
                language: languageOf(text),
              }).text,
          }
        : {}),
      staffHash: ownerHashOf,
      log,
      now,
      timeoutMs: timings.surgeCheckTimeoutMs,
    });
  const allowedLinkDomains = config.chat.allowedLinkDomains;
  const chatConfig = {
    ...defaultChatConfig,
    ...context.config,
    numberOfResults: config.chat.numberOfResults,
    queryExpansion: config.chat.queryExpansion,
    stopPollMs: timings.stopPollMs,
    generationLeaseMs: timings.generationLeaseMs,
    promptCache: promptCachePolicyFor(
      config.model.id,
      config.model.promptCaching,
      withPromptCacheSupport(config.model.promptCacheModels),
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
      ...(surges ? { surges } : {}),
    }),
    knowledge: createKnowledgeRoutes(context, {
      store,
      retriever,
      model,
      issueNumbers: adapters.issueNumbers,
      ...(adapters.documents ? { documents: adapters.documents } : {}),
      syncBacklog: adapters.syncBacklog,
      config: { allowedLinkDomains, ticketCategories: config.knowledge.ticketCategories },
      scrubSettings: config.knowledge.personalDataSettings,
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
      examplesKept: config.insights.examples,
      scrubSettings: config.knowledge.personalDataSettings,
      ...(adapters.catalog ? { catalog: adapters.catalog } : {}),
      ...(adapters.surges
        ? {
            surges: (scope, at) =>
              readActiveSurges(adapters.surges?.counter ?? noSurges, scope, at, surgeSettings),
          }
        : {}),
    }),
    knownIssues: createKnownIssueRoutes(context, {
      ...(adapters.surges ? { knownIssues: adapters.surges.knownIssues } : {}),
      config: { allowedLinkDomains },
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
    config.auth.mode === 'local'
      ? {
          mode: 'local',
          tenantId: config.auth.tenantId,
          knowledgeEditors: config.auth.knowledgeEditors,
          serviceDeskLeads: config.auth.serviceDeskLeads,
        }
      : {
          mode: 'cognito',
          tenantId: config.auth.tenantId,
          knowledgeEditorGroup: config.auth.knowledgeEditorGroup,
          serviceDeskLeadGroup: config.auth.serviceDeskLeadGroup,
          verifier:
            overrides.verifier ??
            createCognitoVerifier(config.auth.userPoolId ?? '', config.auth.clientId ?? ''),
        },
  );
  return createRequestServer({ table, resolveOwner, observability });
}
