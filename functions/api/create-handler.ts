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
import { createInsightsRecorder } from '../insights/record-insights.js';
import {
  languageOf,
  ownerAsPerson,
  peopleNamedIn,
  scrubPersonalData,
} from '../knowledge/personal-data-scrub.js';
import { withPrices } from '../observability/model-prices.js';
import { createObservability, ownerHashOf } from '../observability/telemetry.js';
import type { FunctionConfig } from '../settings/function-settings.js';
import { readActiveSurges } from '../surges/active-surges.js';
import { createSurgeCheck } from '../surges/surge-check.js';
import { createAwsAdapters, type HandlerOverrides } from './aws-adapters.js';
import type { HttpResponse } from './http.js';
import { importOnFirstCall } from './import-on-first-call.js';
import { withoutInsightsStore } from './on-demand-adapters.js';
import {
  type AccessTokenVerifier,
  createCognitoVerifier,
  createOidcVerifier,
  createOwnerResolver,
  type IdentityOptions,
} from './resolve-owner.js';
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
    // What a chat never calls is imported on its first request (import-on-first-call.ts).
    attachments: importOnFirstCall(async () =>
      (await import('./occasional-route-groups.js')).createAttachmentRoutes({
        attachments: adapters.attachments,
        log,
      }),
    ),
    chat: createChatRoute(context, {
      store,
      retriever,
      model,
      config: chatConfig,
      telemetry: observability.telemetry,
      attachments: {
        store: adapters.attachments,
        readingMaxTokens: config.attachments.readingMaxTokens,
      },
      ...withInsights,
      ...(surges ? { surges } : {}),
    }),
    knowledge: importOnFirstCall(async () =>
      (await import('./occasional-route-groups.js')).createKnowledgeRoutes(context, {
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
    ),
    conversations: createConversationRoutes(context, store, {
      feedbackRecorded: (report) => observability.feedbackRecorded(report),
      attachments: adapters.attachments,
      ...withInsights,
    }),
    insights: importOnFirstCall(async () =>
      (await import('./occasional-route-groups.js')).createInsightsRoutes(context, {
        insights: insightsStore ?? withoutInsightsStore,
        examplesKept: config.insights.examples,
        scrubSettings: config.knowledge.personalDataSettings,
        tickets: retriever,
        ...(adapters.catalog ? { catalog: adapters.catalog } : {}),
        ...(adapters.knowledgeFreshness ? { knowledgeFreshness: adapters.knowledgeFreshness } : {}),
        ...(adapters.surges
          ? {
              surges: (scope, at) =>
                readActiveSurges(adapters.surges?.counter ?? noSurges, scope, at, surgeSettings),
            }
          : {}),
      }),
    ),
    knownIssues: importOnFirstCall(async () =>
      (await import('./occasional-route-groups.js')).createKnownIssueRoutes(context, {
        ...(adapters.surges ? { knownIssues: adapters.surges.knownIssues } : {}),
        config: { allowedLinkDomains },
      }),
    ),
    handoff: importOnFirstCall(async () =>
      (await import('./occasional-route-groups.js')).createHandoffRoute(context, {
        store,
        model,
        config: { allowedLinkDomains },
      }),
    ),
    mailDrafts: importOnFirstCall(async () =>
      (await import('./occasional-route-groups.js')).createMailDraftRoutes(context, {
        store,
        model,
        config: { allowedLinkDomains },
        recorded: (report) => observability.mailDraftRecorded(report),
        ...withInsights,
      }),
    ),
  });
  const resolveOwner =
    overrides.resolveOwner ?? createOwnerResolver(identityOptions(config.auth, overrides.verifier));
  return createRequestServer({ table, resolveOwner, observability });
}

/**
 * Who the caller is, per `AUTH_MODE`: the dev header locally; a Cognito access token (roles from
 * `cognito:groups`, the editor and lead groups); or an OpenID Connect issuer's (roles from
 * `OIDC_ROLE_CLAIM`, editor and lead role values defaulting to the group names). The config
 * schema has already required the ids and issuer each mode needs.
 */
function identityOptions(
  auth: FunctionConfig['auth'],
  verifier: AccessTokenVerifier | undefined,
): IdentityOptions {
  const oidc = auth.mode === 'oidc';
  const roles = {
    editorRoles:
      oidc && auth.editorRoles.length > 0 ? auth.editorRoles : [auth.knowledgeEditorGroup],
    leadRoles: oidc && auth.leadRoles.length > 0 ? auth.leadRoles : [auth.serviceDeskLeadGroup],
    deskRoles: auth.deskRoles,
  };
  if (auth.mode === 'local')
    return {
      mode: 'local',
      tenantId: auth.tenantId,
      knowledgeEditors: auth.knowledgeEditors,
      serviceDeskLeads: auth.serviceDeskLeads,
      devUserRoles: auth.devUserRoles,
      roles,
    };
  return {
    mode: 'token',
    tenantId: auth.tenantId,
    roleClaim: oidc ? auth.roleClaim : 'cognito:groups',
    roleClaimRequired: oidc,
    roles,
    verifier:
      verifier ??
      (oidc
        ? createOidcVerifier(auth.oidcIssuer ?? '', auth.oidcAudience)
        : createCognitoVerifier(
            auth.userPoolId ?? '',
            (auth.clientId ?? '')
              .split(',')
              .map((id) => id.trim())
              .filter(Boolean),
          )),
  };
}
