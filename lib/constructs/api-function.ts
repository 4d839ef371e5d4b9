import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { UPLOADED_CATEGORIES_KEY_PREFIX } from '../../functions/adapters/bedrock/knowledge-base-documents.js';
import { DEFAULT_VENDOR_LINK_DOMAINS } from '../../functions/contract/links.js';
import { DEFAULT_GAP_SCORE_THRESHOLD } from '../../functions/insights/record-insights.js';
import { ANALYZER_DICTIONARY_FOLDER } from '../../functions/knowledge/person-name-analyzer.js';
import type { ModelPrice } from '../../functions/observability/model-prices.js';
import { TRACER_OMITTED_DEFINE } from '../../functions/observability/tracing.js';
import {
  DEFAULT_PADDING_BYTES,
  type StreamPaddingMode,
} from '../../functions/sse/stream-padding.js';
import {
  foundationModelId,
  inferenceProfilePrefix,
  modelInvokeStatements,
  rerankingModelArn,
  rerankStatements,
} from '../bedrock-model-access.js';
import { searchTypeOf, type VectorStore } from '../config.js';
import { publishedTicketsKeyPrefix } from '../deployed-stack-names.js';
import { resourceAsNagRendersIt } from '../nag-acknowledgements.js';
import type { KnowledgeBaseReference } from './knowledge-base.js';

/** Environment variables the API function reads (functions/api/handler.ts). */
export const apiEnvironmentNames = {
  conversationsTable: 'CONVERSATIONS_TABLE',
  turnsTable: 'TURNS_TABLE',
  insightsTable: 'INSIGHTS_TABLE',
  insightsExamples: 'INSIGHTS_EXAMPLES',
  insightsGapScore: 'INSIGHTS_GAP_SCORE',
  knowledgeBaseId: 'KNOWLEDGE_BASE_ID',
  modelId: 'MODEL_ID',
  authMode: 'AUTH_MODE',
  userPoolId: 'COGNITO_USER_POOL_ID',
  clientId: 'COGNITO_CLIENT_ID',
  retentionDays: 'RETENTION_DAYS',
  numberOfResults: 'NUMBER_OF_RESULTS',
  queryExpansion: 'QUERY_EXPANSION',
  rerankingModelArn: 'RERANKING_MODEL_ARN',
  dailyTokenBudget: 'DAILY_TOKEN_BUDGET',
  streamPadding: 'STREAM_PADDING',
  streamPaddingBytes: 'STREAM_PADDING_BYTES',
  promptCaching: 'PROMPT_CACHING',
  allowedLinkDomains: 'ALLOWED_LINK_DOMAINS',
  tracing: 'POWERTOOLS_TRACE_ENABLED',
  guardrailIdentifier: 'GUARDRAIL_IDENTIFIER',
  guardrailVersion: 'GUARDRAIL_VERSION',
  knowledgeBucket: 'KNOWLEDGE_BUCKET',
  knowledgeDataSourceId: 'KNOWLEDGE_DATA_SOURCE_ID',
  knowledgeKeyPrefix: 'KNOWLEDGE_KEY_PREFIX',
  knowledgeEditorGroup: 'KNOWLEDGE_EDITOR_GROUP',
  serviceDeskLeadGroup: 'SERVICE_DESK_LEAD_GROUP',
  vectorStore: 'VECTOR_STORE',
  searchType: 'SEARCH_TYPE',
  modelPrices: 'MODEL_PRICES',
  ticketCategories: 'TICKET_CATEGORIES',
  personalDataSettings: 'PERSONAL_DATA_SETTINGS',
} as const;

type ApiEnvironmentName = (typeof apiEnvironmentNames)[keyof typeof apiEnvironmentNames];
/** Set only when knowledge capture is on: without KNOWLEDGE_BUCKET the function answers 501. */
type KnowledgeCaptureEnvironmentName = (typeof apiEnvironmentNames)[
  | 'knowledgeBucket'
  | 'knowledgeDataSourceId'
  | 'knowledgeKeyPrefix'
  | 'knowledgeEditorGroup'];
type GuardrailEnvironmentName = (typeof apiEnvironmentNames)[
  | 'guardrailIdentifier'
  | 'guardrailVersion'];
/** Set only when the deployment has a `personalDataSettings` file. */
type OptionalEnvironmentName = (typeof apiEnvironmentNames)['personalDataSettings'];

/** The Bedrock Guardrail every model call goes through (ADR 0013). */
export interface ModelGuardrailTarget {
  /** Its id or ARN, as ConverseStream's `guardrailIdentifier` takes it. */
  readonly identifier: string;
  /** A published version (or DRAFT). */
  readonly version: string;
  /** Its ARN, for the `bedrock:ApplyGuardrail` grant. */
  readonly arn: string;
}

/**
 * Where published tickets go (knowledge capture): the Knowledge Base's document bucket and the
 * data source that reads it.
 */
export interface KnowledgeCaptureTarget {
  /** The function writes `<issueId>.md` and its sidecar under `publishedTicketsKeyPrefix`. */
  readonly documentBucket: s3.IBucket;
  /** Each publish starts one ingestion job (a sync) of this data source. */
  readonly dataSourceId: string;
  /** The Cognito group whose members may publish (`cognito:groups` claim). */
  readonly editorGroupName: string;
}

/**
 * How every function of this app is bundled (the API and the retention sweeper): one ESM file
 * built by esbuild from node_modules, SDK included.
 */
export const nodeFunctionBundling: nodejs.BundlingOptions = {
  // esbuild from node_modules: synthesis works offline and without Docker.
  forceDockerBundling: false,
  format: nodejs.OutputFormat.ESM,
  target: 'node22',
  platform: 'node',
  mainFields: ['module', 'main'],
  minify: true,
  sourceMap: true,
  sourceMapMode: nodejs.SourceMapMode.DEFAULT,
  // Line mappings for stack traces without shipping the sources (a 4 MB map otherwise).
  sourcesContent: false,
  // Bundle the pinned SDK clients: the same versions as the tests and the local stack,
  // rather than whatever the runtime ships.
  bundleAwsSDK: true,
  // CommonJS dependencies inside an ESM bundle call require(); give them one.
  banner:
    "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  logLevel: nodejs.LogLevel.ERROR,
};

/**
 * The person-name analyzer's dictionary (kuromoji's IPADIC files, person-name-analyzer.ts) copied
 * beside the API function's bundle as `kuromoji-dict/`: esbuild bundles kuromoji's code, not the
 * files it reads at run time. The analyzer finds them there (`analyzerDictionaryPath`) when it
 * loads — at a knowledge draft or a lead's read of gap examples, never at cold start.
 */
export const analyzerDictionaryHooks: nodejs.ICommandHooks = {
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (_inputDir, outputDir) => {
    const source = join(
      dirname(createRequire(import.meta.url).resolve('kuromoji/package.json')),
      'dict',
    );
    const target = join(outputDir, ANALYZER_DICTIONARY_FOLDER);
    const copy = `require('node:fs').cpSync(${JSON.stringify(source)}, ${JSON.stringify(target)}, { recursive: true })`;
    return [`node -e ${JSON.stringify(copy)}`];
  },
};

export interface AppFunctionOptions {
  /** The handler module. */
  readonly entry: string;
  /** The role's description: what the function is for. */
  readonly description: string;
  readonly memorySize: number;
  readonly timeout: Duration;
  readonly environment: Readonly<Record<string, string>>;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
  /** Further settings of this function (tracing, reserved concurrency, retries, bundling). */
  readonly functionProps?: Partial<nodejs.NodejsFunctionProps>;
}

/**
 * A function of this app, created in `scope` as `Logs`, `Role` and `Function`: its own log group
 * with a retention, an explicit role that may write to that group only (instead of the
 * AWSLambdaBasicExecutionRole managed policy, which may write to any), Node.js 22 on Graviton
 * (~20% cheaper per GB-second; nothing native in the bundles), bundled by `nodeFunctionBundling`
 * with source maps on. The caller grants the rest to `role`.
 */
export function createAppFunction(scope: Construct, options: AppFunctionOptions) {
  const logGroup = new logs.LogGroup(scope, 'Logs', {
    retention: options.logRetention ?? logs.RetentionDays.ONE_MONTH,
    removalPolicy: options.logRemovalPolicy ?? RemovalPolicy.RETAIN,
  });
  const role = new iam.Role(scope, 'Role', {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: options.description,
  });
  logGroup.grantWrite(role);
  const fn = new nodejs.NodejsFunction(scope, 'Function', {
    entry: options.entry,
    handler: 'handler',
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    memorySize: options.memorySize,
    timeout: options.timeout,
    role,
    logGroup,
    environment: { ...options.environment, NODE_OPTIONS: '--enable-source-maps' },
    bundling: nodeFunctionBundling,
    ...options.functionProps,
  });
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-L1',
    reason:
      'Node.js 22 is pinned on purpose: the bundles target node22 and the local stack and ' +
      'tests run the same major version. Move to a newer runtime in one reviewed change.',
  });
  return { function: fn, role, logGroup };
}

export interface ApiFunctionProps {
  /** The handler module, e.g. `functions/api/handler.ts`. */
  readonly entry: string;
  readonly conversationsTable: dynamodb.ITable;
  readonly turnsTable: dynamodb.ITable;
  /** Service-desk insights' aggregates (ADR 0022): the function reads and writes its items. */
  readonly insightsTable: dynamodb.ITable;
  /**
   * Keep gap examples (scrubbed inquiry text, leads only) on the insights page
   * (`insightsExamples`). @default true
   */
  readonly insightsExamples?: boolean;
  /**
   * The best retrieval score under which an answer counts as a knowledge gap
   * (`insightsGapScore`). @default DEFAULT_GAP_SCORE_THRESHOLD (0.4)
   */
  readonly insightsGapScore?: number;
  /** `${tableArn}/index/${name}` of the indexes the function queries. */
  readonly indexArns: readonly string[];
  readonly knowledgeBase: KnowledgeBaseReference;
  /**
   * Knowledge capture: the function may write and delete objects under
   * `publishedTicketsKeyPrefix` of the document bucket and start a sync of the data source.
   * @default off — no KNOWLEDGE_* settings and no permissions; publishing answers 501
   */
  readonly knowledgeCapture?: KnowledgeCaptureTarget;
  /** Model or inference-profile id for ConverseStream. */
  readonly modelId: string;
  /**
   * The Knowledge Base's vector store: the function searches HYBRID on OpenSearch Serverless,
   * SEMANTIC elsewhere, with the filters the store supports.
   * @default 'opensearch-serverless'
   */
  readonly vectorStore?: VectorStore;
  /**
   * The deployed tickets' categories (`readTicketCategories` of the ticket folder, at synth; ADR
   * 0020): knowledge capture's choices. Bounded by `ticketCategorySet` (≤ 50 × 40 characters), so
   * the variable stays far below Lambda's 4 KB for all variables.
   * @default none known — a published ticket takes any safe category
   */
  readonly ticketCategories?: readonly string[];
  /**
   * Knowledge capture's personal-data scrub settings as compact JSON (`readPersonalDataSettings`
   * of the `personalDataSettings` file, at synth; ADR 0019).
   * @default the built-in detectors only
   */
  readonly personalDataSettings?: string;
  /** Prices that add to or override the function's table (`modelPrices`). @default none */
  readonly modelPrices?: Readonly<Record<string, ModelPrice>>;
  readonly userPoolId: string;
  readonly userPoolClientId: string;
  /** The Cognito group whose members may read the insights page (`cognito:groups` claim). */
  readonly serviceDeskLeadGroupName: string;
  /** Days until a conversation expires (TTL), counted from its last change. */
  readonly retentionDays: number;
  /** Tickets requested per Retrieve call. */
  readonly numberOfResults: number;
  /** Expand retrieval queries with the bilingual glossary. @default false */
  readonly queryExpansion?: boolean;
  /**
   * Rerank retrieved chunks with this Bedrock reranker model (`amazon.rerank-v1:0`,
   * `cohere.rerank-v3-5:0`); the function gets its ARN and the permissions to use it.
   * @default no reranking
   */
  readonly rerankingModelId?: string;
  /** Tokens per user per UTC day; 0 = no budget. @default 2_000_000 */
  readonly dailyTokenBudget?: number;
  /** Padding comments after writes (functions/sse/stream-padding.ts). @default 'off' */
  readonly streamPadding?: StreamPaddingMode;
  /** Bytes of one padding comment. @default DEFAULT_PADDING_BYTES (16 KiB) */
  readonly streamPaddingBytes?: number;
  /** Prompt caching where the model supports it (`auto`) or never (`off`). @default 'auto' */
  readonly promptCaching?: 'auto' | 'off';
  /**
   * Domains links in answers may point to, subdomains included (functions/contract/links.ts).
   * @default DEFAULT_VENDOR_LINK_DOMAINS (the function's own default)
   */
  readonly allowedLinkDomains?: readonly string[];
  /**
   * A Bedrock Guardrail on every model call (prompt-attack filter over the retrieved tickets and
   * the inquiry; ADR 0013); the role may apply it.
   * @default none
   */
  readonly guardrail?: ModelGuardrailTarget;
  /**
   * AWS X-Ray active tracing, and the function's Powertools Tracer on: requests, Retrieve,
   * ConverseStream and DynamoDB calls as subsegments (functions/observability/tracing.ts).
   * @default false
   */
  readonly tracing?: boolean;
  /**
   * Longer than the longest answer: generation of a full `results` answer takes ~30–90 s, and a
   * timed-out stream loses its final `result` event.
   * @default Duration.minutes(5)
   */
  readonly timeout?: Duration;
  /**
   * Reserved concurrency: the most invocations that run at once; 0 or undefined sets none.
   * @default no cap
   */
  readonly reservedConcurrency?: number;
  /** @default 1024 (CPU scales with memory; JSON parsing and SSE encoding are CPU-bound) */
  readonly memorySize?: number;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * The API function (all of `/api/*`) behind a streaming, IAM-authenticated Function URL, which
 * only CloudFront (through origin access control) can call. Its role can do exactly what the
 * handler does: read and write the two tables, retrieve from one Knowledge Base, stream one model.
 */
export class ApiFunction extends Construct {
  readonly function: nodejs.NodejsFunction;
  readonly functionUrl: lambda.FunctionUrl;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    const capture = props.knowledgeCapture;
    const environment: Record<
      Exclude<
        ApiEnvironmentName,
        KnowledgeCaptureEnvironmentName | GuardrailEnvironmentName | OptionalEnvironmentName
      >,
      string
    > &
      Partial<
        Record<
          KnowledgeCaptureEnvironmentName | GuardrailEnvironmentName | OptionalEnvironmentName,
          string
        >
      > = {
      [apiEnvironmentNames.conversationsTable]: props.conversationsTable.tableName,
      [apiEnvironmentNames.turnsTable]: props.turnsTable.tableName,
      [apiEnvironmentNames.insightsTable]: props.insightsTable.tableName,
      [apiEnvironmentNames.insightsExamples]: String(props.insightsExamples ?? true),
      [apiEnvironmentNames.insightsGapScore]: String(
        props.insightsGapScore ?? DEFAULT_GAP_SCORE_THRESHOLD,
      ),
      [apiEnvironmentNames.knowledgeBaseId]: props.knowledgeBase.knowledgeBaseId,
      [apiEnvironmentNames.modelId]: props.modelId,
      [apiEnvironmentNames.authMode]: 'cognito',
      [apiEnvironmentNames.userPoolId]: props.userPoolId,
      [apiEnvironmentNames.clientId]: props.userPoolClientId,
      [apiEnvironmentNames.serviceDeskLeadGroup]: props.serviceDeskLeadGroupName,
      [apiEnvironmentNames.retentionDays]: String(props.retentionDays),
      [apiEnvironmentNames.numberOfResults]: String(props.numberOfResults),
      [apiEnvironmentNames.queryExpansion]: String(props.queryExpansion ?? false),
      // Empty: no reranking (the function reads an empty value as unset).
      [apiEnvironmentNames.rerankingModelArn]: props.rerankingModelId
        ? rerankingModelArn(this, props.rerankingModelId)
        : '',
      [apiEnvironmentNames.dailyTokenBudget]: String(props.dailyTokenBudget ?? 2_000_000),
      [apiEnvironmentNames.streamPadding]: props.streamPadding ?? 'off',
      [apiEnvironmentNames.streamPaddingBytes]: String(
        props.streamPaddingBytes ?? DEFAULT_PADDING_BYTES,
      ),
      [apiEnvironmentNames.promptCaching]: props.promptCaching ?? 'auto',
      [apiEnvironmentNames.allowedLinkDomains]: (
        props.allowedLinkDomains ?? DEFAULT_VENDOR_LINK_DOMAINS
      ).join(','),
      [apiEnvironmentNames.tracing]: String(props.tracing ?? false),
      ...(props.guardrail && {
        [apiEnvironmentNames.guardrailIdentifier]: props.guardrail.identifier,
        [apiEnvironmentNames.guardrailVersion]: props.guardrail.version,
      }),
      [apiEnvironmentNames.vectorStore]: props.vectorStore ?? 'opensearch-serverless',
      [apiEnvironmentNames.searchType]: searchTypeOf(props.vectorStore ?? 'opensearch-serverless'),
      [apiEnvironmentNames.modelPrices]: JSON.stringify(props.modelPrices ?? {}),
      [apiEnvironmentNames.ticketCategories]: JSON.stringify(props.ticketCategories ?? []),
      ...(props.personalDataSettings !== undefined && {
        [apiEnvironmentNames.personalDataSettings]: props.personalDataSettings,
      }),
      ...(capture && {
        [apiEnvironmentNames.knowledgeBucket]: capture.documentBucket.bucketName,
        [apiEnvironmentNames.knowledgeDataSourceId]: capture.dataSourceId,
        [apiEnvironmentNames.knowledgeKeyPrefix]: publishedTicketsKeyPrefix,
        [apiEnvironmentNames.knowledgeEditorGroup]: capture.editorGroupName,
      }),
    };

    const created = createAppFunction(this, {
      entry: props.entry,
      description: 'Service-desk API function',
      memorySize: props.memorySize ?? 1024,
      timeout: props.timeout ?? Duration.minutes(5),
      // NODE_ENV=production turns off the per-event schema check of the SSE encoder (tests keep it).
      environment: { ...environment, NODE_ENV: 'production' },
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
      functionProps: {
        reservedConcurrentExecutions: props.reservedConcurrency || undefined,
        // ACTIVE also grants the role xray:PutTraceSegments and xray:PutTelemetryRecords.
        tracing: props.tracing ? lambda.Tracing.ACTIVE : undefined,
        // Without tracing the bundle leaves the X-Ray SDK out: less to parse at every cold start.
        bundling: {
          ...nodeFunctionBundling,
          ...(props.tracing ? {} : { define: { ...TRACER_OMITTED_DEFINE } }),
          commandHooks: analyzerDictionaryHooks,
        },
      },
    });
    this.function = created.function;
    this.role = created.role;
    this.logGroup = created.logGroup;

    this.functionUrl = this.function.addFunctionUrl({
      // Only CloudFront, signing with origin access control, may call it.
      authType: lambda.FunctionUrlAuthType.AWS_IAM,
      // The handler streams SSE with awslambda.streamifyResponse; BUFFERED would return nothing.
      invokeMode: lambda.InvokeMode.RESPONSE_STREAM,
    });

    const tableArns = [props.conversationsTable.tableArn, props.turnsTable.tableArn];
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'ConversationTables',
        // TransactWriteItems is authorized per item action (Put/Update/ConditionCheck).
        actions: [
          'dynamodb:GetItem',
          'dynamodb:BatchGetItem',
          'dynamodb:Query',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
          'dynamodb:BatchWriteItem',
          'dynamodb:ConditionCheckItem',
        ],
        resources: [...tableArns, ...props.indexArns],
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'InsightsTable',
        // Counters are UpdateItem (ADD), examples and runs PutItem, reads Query and GetItem,
        // forgetting a conversation DeleteItem; no scan, no batch, no index.
        actions: [
          'dynamodb:GetItem',
          'dynamodb:Query',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:DeleteItem',
        ],
        resources: [props.insightsTable.tableArn],
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'RetrieveTickets',
        actions: ['bedrock:Retrieve'],
        resources: [props.knowledgeBase.knowledgeBaseArn],
      }),
    );
    if (props.rerankingModelId) {
      for (const statement of rerankStatements(this, props.rerankingModelId)) {
        this.role.addToPolicy(statement);
      }
    }
    if (capture) this.allowPublishing(capture, props.knowledgeBase);
    for (const statement of modelInvokeStatements(this, props.modelId, [
      'bedrock:InvokeModelWithResponseStream',
    ])) {
      this.role.addToPolicy(statement);
    }
    if (props.guardrail) {
      // A call with guardrailConfig is authorized for the guardrail too.
      // https://docs.aws.amazon.com/bedrock/latest/userguide/guardrails-permissions.html ("Permissions for invoking guardrails")
      this.role.addToPolicy(
        new iam.PolicyStatement({
          sid: 'ApplyGuardrail',
          actions: ['bedrock:ApplyGuardrail'],
          resources: [props.guardrail.arn],
        }),
      );
    }

    // The first call to a third-party model (Anthropic) in an account makes Bedrock subscribe
    // to it in AWS Marketplace on the caller's behalf; without these the call returns
    // AccessDeniedException. Only through Bedrock: aws:CalledViaLast. Unsubscribe is never
    // needed. https://docs.aws.amazon.com/bedrock/latest/userguide/model-access.html
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'SubscribeToModelOnFirstUse',
        actions: ['aws-marketplace:Subscribe', 'aws-marketplace:ViewSubscriptions'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:CalledViaLast': 'bedrock.amazonaws.com' } },
      }),
    );
    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'AWS Marketplace subscriptions have no resource ARN; the grant is Subscribe and ' +
        'ViewSubscriptions only, and only when Bedrock makes the call (aws:CalledViaLast).' +
        (props.rerankingModelId
          ? ' bedrock:Rerank has no resource type (AWS documents it on *); the model it may ' +
            'invoke is scoped by the separate InvokeModel grant on the reranker ARN.'
          : '') +
        (props.tracing
          ? ' X-Ray PutTraceSegments and PutTelemetryRecords (active tracing) take no resource.'
          : ''),
    });

    if (inferenceProfilePrefix(props.modelId)) {
      Validations.of(this.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/${foundationModelId(props.modelId)}]`,
        reason:
          'Cross-Region inference: the inference profile routes to regions AWS may extend; the ' +
          'grant is for this one model and only through this profile (bedrock:InferenceProfileArn).',
      });
    }
  }

  /**
   * Knowledge capture: write (and, to clean up a half-done publish, delete) ticket documents
   * under `tickets/published/` only — never the seed tickets the deployment manages — read the
   * uploaded category files, and start an ingestion job of the Knowledge Base. The bucket is SSE-S3 when this stack provisions it;
   * a reused bucket encrypted with a customer-managed KMS key also needs kms:GenerateDataKey.
   */
  private allowPublishing(capture: KnowledgeCaptureTarget, knowledgeBase: KnowledgeBaseReference) {
    const publishedObjects = capture.documentBucket.arnForObjects(`${publishedTicketsKeyPrefix}*`);
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'PublishTickets',
        actions: ['s3:PutObject', 's3:DeleteObject'],
        resources: [publishedObjects],
      }),
    );
    // The category files of tickets uploaded after the deploy (`npm run import -- --upload`),
    // for the knowledge form's choices: read only, and only that prefix (the listing too, so a
    // missing file is a 404, not a 403).
    const categoryFiles = capture.documentBucket.arnForObjects(
      `${UPLOADED_CATEGORIES_KEY_PREFIX}*`,
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'ReadUploadedCategories',
        actions: ['s3:GetObject'],
        resources: [categoryFiles],
      }),
    );
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'ListUploadedCategories',
        actions: ['s3:ListBucket'],
        resources: [capture.documentBucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': `${UPLOADED_CATEGORIES_KEY_PREFIX}*` } },
      }),
    );
    // StartIngestionJob is authorized on the knowledge-base resource type (the data source is a
    // parameter); GetIngestionJob is not needed: the function does not wait for the job.
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'SyncPublishedTickets',
        actions: ['bedrock:StartIngestionJob'],
        resources: [knowledgeBase.knowledgeBaseArn],
      }),
    );
    // The insights page's ticket catalog (issue #28): the data source's document listing, read
    // only. Authorized on the knowledge-base resource type like the sync (the data source is a
    // path parameter of the call).
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'ListTicketCatalog',
        actions: ['bedrock:ListKnowledgeBaseDocuments'],
        resources: [knowledgeBase.knowledgeBaseArn],
      }),
    );
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${resourceAsNagRendersIt(this, categoryFiles)}]`,
      reason:
        'One category file per import source (ticket-categories/imported-<source>.json), ' +
        'written by npm run import --upload after the deploy; the grant is GetObject only, ' +
        'under ticket-categories/ of the document bucket.',
    });
    Validations.of(this.role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${resourceAsNagRendersIt(this, publishedObjects)}]`,
      reason:
        'Knowledge capture writes <issueId>.md and <issueId>.md.metadata.json for tickets ' +
        'numbered at publish time, so the object names are unknown at synth time; the grant is ' +
        'PutObject and DeleteObject only, under tickets/published/ of the document bucket.',
    });
  }
}
