import { BedrockAgentRuntimeClient } from '@aws-sdk/client-bedrock-agent-runtime';
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createBedrockChatModel } from '../adapters/bedrock/bedrock-chat-model.js';
import { bedrockTransport } from '../adapters/bedrock/bedrock-transport.js';
import { createKnowledgeBaseRetriever } from '../adapters/bedrock/knowledge-base-retriever.js';
import {
  createDailyBudget,
  createIssueNumbers,
  FIRST_PUBLISHED_ISSUE_ID,
} from '../adapters/dynamodb/counters.js';
import {
  createDynamoDbConversationStore,
  TURN_CACHE_MAX_BYTES,
} from '../adapters/dynamodb/create-dynamodb-conversation-store.js';
import { createDynamoDbInsightsStore } from '../adapters/dynamodb/insights-store.js';
import {
  createDynamoDbKnownIssueStore,
  createDynamoDbSurgeCounter,
} from '../adapters/dynamodb/surge-store.js';
import { createSyncBacklog } from '../adapters/dynamodb/sync-backlog.js';
import { createKnowledgeFreshness } from '../adapters/dynamodb/ticket-sync-status.js';
import { createSurgeAlerts } from '../adapters/sns/surge-alerts.js';
import type { AttachmentStore } from '../attachments/ports.js';
import type { Log } from '../chat/log.js';
import type { ChatModel, ConversationStore, Retriever } from '../chat/ports.js';
import type { InsightsStore, KnowledgeFreshness, TicketCatalog } from '../insights/ports.js';
import type { IssueNumbers, KnowledgeDocuments, SyncBacklog } from '../knowledge/ports.js';
import type { DailyBudget } from '../model-call/daily-budget.js';
import type { Tracing } from '../observability/tracing.js';
import { type FunctionConfig, guardrailOf } from '../settings/function-settings.js';
import type { KnownIssueStore, SurgeAlerts, SurgeCounter } from '../surges/ports.js';
import {
  attachmentStoreFor,
  knowledgeDocumentsFor,
  ticketCatalogFor,
} from './on-demand-adapters.js';
import type { AccessTokenVerifier, ResolveOwner } from './resolve-owner.js';
import type { ApiTimings } from './route-context.js';

/** Replacements for tests; production passes none and gets the AWS adapters. */
export interface HandlerOverrides {
  readonly store?: ConversationStore;
  readonly budget?: DailyBudget;
  readonly retriever?: Retriever;
  readonly model?: ChatModel;
  readonly verifier?: AccessTokenVerifier;
  /** Who each request's caller is, instead of the `AUTH_MODE` resolver (e.g. desks per dev user). */
  readonly resolveOwner?: ResolveOwner;
  readonly documents?: KnowledgeDocuments;
  readonly issueNumbers?: IssueNumbers;
  /** The insights aggregates; production: the DynamoDB store when INSIGHTS_TABLE is set. */
  readonly insights?: InsightsStore;
  /** The Knowledge Base's ticket set; production: its data source's listing, when it has one. */
  readonly catalog?: TicketCatalog;
  /** The live-synced systems' freshness; production: the ticket sync's table, when set. */
  readonly knowledgeFreshness?: KnowledgeFreshness;
  /** Attachments' bytes; production: the S3 bucket of `ATTACHMENTS_BUCKET`. */
  readonly attachments?: AttachmentStore;
  readonly now?: () => Date;
  /** Where a surge's start is announced; production: the alarm topic, or a log line without one. */
  readonly surgeAlerts?: SurgeAlerts;
  /** Shorter intervals for tests (a stop noticed sooner, a crashed claim taken over sooner). */
  readonly timings?: Partial<ApiTimings>;
}

/** The function's adapters, each created once per container (or its test replacement). */
export interface AwsAdapters {
  readonly store: ConversationStore;
  readonly budget: DailyBudget;
  readonly retriever: Retriever;
  readonly model: ChatModel;
  /** Undefined without `INSIGHTS_TABLE`. */
  readonly insightsStore?: InsightsStore;
  /** Undefined without a document bucket and data source (capture answers 501). */
  readonly documents?: KnowledgeDocuments;
  readonly issueNumbers: IssueNumbers;
  readonly syncBacklog: SyncBacklog;
  /** Undefined without a data source id to list. */
  readonly catalog?: TicketCatalog;
  /** Undefined without `TICKET_SYNC_TABLE` and sources. */
  readonly knowledgeFreshness?: KnowledgeFreshness;
  readonly attachments: AttachmentStore;
  /** Surges and known issues (ADR 0033): on the insights table, so undefined without it. */
  readonly surges?: {
    readonly counter: SurgeCounter;
    readonly knownIssues: KnownIssueStore;
    readonly alerts: SurgeAlerts;
  };
}

/**
 * The AWS clients and the adapters over them, traced: DynamoDB, Bedrock Runtime and Agent
 * Runtime now; the S3 and Bedrock Agent ones on first use (`on-demand-adapters.ts`).
 */
export function createAwsAdapters(
  config: FunctionConfig,
  overrides: HandlerOverrides,
  tracing: Pick<Tracing, 'captureClient' | 'traceChatModel'>,
  log: Log,
  now: () => Date,
): AwsAdapters {
  const region = config.endpoints.region;
  const capture = <Client extends object>(client: Client) => tracing.captureClient(client);
  const documents = DynamoDBDocumentClient.from(
    capture(new DynamoDBClient({ region, endpoint: config.endpoints.dynamoDb })),
    { marshallOptions: { removeUndefinedValues: true } },
  );
  const tables = {
    conversations: config.storage.conversationsTable,
    turns: config.storage.turnsTable,
  };
  const retentionDays = config.storage.retentionDays;
  const insightsTable = config.insights.table;
  const knowledgeDocuments = overrides.documents ?? knowledgeDocumentsFor(config, tracing);
  const catalog = overrides.catalog ?? ticketCatalogFor(config, tracing, log);
  const knowledgeFreshness =
    overrides.knowledgeFreshness ??
    (config.ticketSync.table && config.ticketSync.sources.length > 0
      ? createKnowledgeFreshness(
          { documents, tableName: config.ticketSync.table },
          config.ticketSync.sources,
        )
      : undefined);
  const insightsStore =
    overrides.insights ??
    (insightsTable
      ? createDynamoDbInsightsStore({ documents, tableName: insightsTable, retentionDays, now })
      : undefined);
  return {
    store:
      overrides.store ??
      createDynamoDbConversationStore({
        client: documents,
        tables,
        retentionDays,
        cacheMaxBytes: TURN_CACHE_MAX_BYTES,
        now,
      }),
    budget: overrides.budget ?? createDailyBudget({ documents, tables }),
    retriever:
      overrides.retriever ??
      createKnowledgeBaseRetriever({
        client: capture(
          new BedrockAgentRuntimeClient({
            region,
            endpoint: config.endpoints.bedrockAgentRuntime,
            requestHandler: bedrockTransport(),
          }),
        ),
        knowledgeBaseId: config.knowledgeBase.id,
        vectorStore: config.knowledgeBase.vectorStore,
        searchType: config.knowledgeBase.searchType,
        rerankingModelArn: config.knowledgeBase.rerankingModelArn,
      }),
    model:
      overrides.model ??
      tracing.traceChatModel(
        createBedrockChatModel({
          client: capture(
            new BedrockRuntimeClient({
              region,
              endpoint: config.endpoints.bedrockRuntime,
              requestHandler: bedrockTransport(),
            }),
          ),
          modelId: config.model.id,
          guardrail: guardrailOf(config.model),
        }),
      ),
    ...(insightsStore ? { insightsStore } : {}),
    ...(knowledgeDocuments ? { documents: knowledgeDocuments } : {}),
    issueNumbers:
      overrides.issueNumbers ?? createIssueNumbers({ documents, tables }, FIRST_PUBLISHED_ISSUE_ID),
    syncBacklog: createSyncBacklog({ documents, tables }),
    ...(catalog ? { catalog } : {}),
    ...(knowledgeFreshness ? { knowledgeFreshness } : {}),
    attachments: overrides.attachments ?? attachmentStoreFor(config, tracing),
    ...(insightsTable
      ? {
          surges: {
            counter: createDynamoDbSurgeCounter({ documents, tableName: insightsTable }),
            knownIssues: createDynamoDbKnownIssueStore({ documents, tableName: insightsTable }),
            alerts:
              overrides.surgeAlerts ??
              createSurgeAlerts({
                topicArn: config.surges.alerts ? config.surges.alarmTopicArn : undefined,
                region,
                // The function role's session, from the SDK's credential chain the clients use.
                credentials: () => documents.config.credentials(),
                log,
              }),
          },
        }
      : {}),
  };
}
