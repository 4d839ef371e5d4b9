import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { AssetHashType, DockerImage, Duration, type RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { buildSync } from 'esbuild';
import { UPLOADED_CATEGORIES_KEY_PREFIX } from '../../functions/adapters/bedrock/knowledge-base-documents.js';
import { ANALYZER_DICTIONARY_FOLDER } from '../../functions/knowledge/person-name-analyzer.js';
import {
  type FunctionSettingValues,
  functionEnvironment,
  functionSettings,
  mergeSettingValues,
} from '../../functions/settings/function-settings.js';
import { apiBundleBuildOptions } from '../../scripts/bundle-api-handler.js';
import {
  foundationModelId,
  grantsModelInAnyRegion,
  modelInvokeStatements,
  rerankingModelArn,
  rerankStatements,
} from '../bedrock-model-access.js';
import { searchTypeOf } from '../config.js';
import { publishedTicketsKeyPrefix } from '../deployed-stack-names.js';
import { resourceAsNagRendersIt } from '../nag-acknowledgements.js';
import { createAppFunctionFromCode } from './app-function.js';
import type { AttachmentBucket } from './attachment-bucket.js';
import type { KnowledgeBaseReference } from './knowledge-base.js';

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
 * The person-name analyzer's dictionary (kuromoji's IPADIC files, person-name-analyzer.ts) copied
 * beside the API function's bundle as `kuromoji-dict/`: esbuild bundles kuromoji's code, not the
 * files it reads at run time. The analyzer finds them there (`analyzerDictionaryPath`) when it
 * loads — at a knowledge draft or a lead's read of gap examples, never at cold start.
 */
export function copyAnalyzerDictionary(outputDir: string): void {
  cpSync(analyzerDictionarySource(), join(outputDir, ANALYZER_DICTIONARY_FOLDER), {
    recursive: true,
  });
}

function analyzerDictionarySource(): string {
  return join(dirname(createRequire(import.meta.url).resolve('kuromoji/package.json')), 'dict');
}

/**
 * The same copy for a single-file `NodejsFunction` that runs the analyzer (the ticket sync's
 * functions scrub what they pull): as a command after its bundling.
 */
export const analyzerDictionaryHooks: nodejs.ICommandHooks = {
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (_inputDir, outputDir) => {
    const target = join(outputDir, ANALYZER_DICTIONARY_FOLDER);
    const copy = `require('node:fs').cpSync(${JSON.stringify(analyzerDictionarySource())}, ${JSON.stringify(target)}, { recursive: true })`;
    return [`node -e ${JSON.stringify(copy)}`];
  },
};

/**
 * The API function's code (ADR 0034): `apiBundleBuildOptions` — the bundle `npm start`, the
 * tests and the bench run — built by synthesis as a local asset bundling, the way the web app is
 * (`web-app-source.ts`), with the analyzer's dictionary beside it. The bundle is split into
 * `index.mjs` and chunks only a dynamic `import()` loads, which `NodejsFunction` cannot build.
 * The asset hash is the hash of the output, so an unchanged bundle uploads nothing.
 */
function apiFunctionCode(entry: string, omitTracer: boolean): lambda.Code {
  return lambda.Code.fromAsset(dirname(entry), {
    assetHashType: AssetHashType.OUTPUT,
    // The source folder is only what synthesis stages when bundling is off (tests): the entry alone.
    exclude: ['*', `!${basename(entry)}`],
    bundling: {
      // Required by the API, never used: tryBundle below builds or throws, it never declines.
      image: DockerImage.fromRegistry('local-bundling-only'),
      local: {
        tryBundle(outputDir) {
          const options = apiBundleBuildOptions({
            entry,
            outfile: join(outputDir, 'index.mjs'),
            omitTracer,
          });
          buildSync({ ...options, logLevel: 'error' });
          copyAnalyzerDictionary(outputDir);
          return true;
        },
      },
    },
  });
}

export interface ApiFunctionProps {
  /** The handler module, e.g. `functions/api/handler.ts`. */
  readonly entry: string;
  /**
   * The function's settings the deployment decides (functions/settings/function-settings.ts),
   * written to its environment as they are; a setting left out takes the function's default.
   * The construct adds what the resources below decide: table names, the Knowledge Base and its
   * search type, the reranker's ARN, the guardrail, Cognito ids, knowledge capture's bucket.
   * `model.id` is required (the role may invoke that model); `observability.tracing` also turns
   * on X-Ray active tracing.
   */
  readonly settings: FunctionSettingValues & { readonly model: { readonly id: string } };
  readonly conversationsTable: dynamodb.ITable;
  readonly turnsTable: dynamodb.ITable;
  /** Service-desk insights' aggregates (ADR 0022): the function reads and writes its items. */
  readonly insightsTable: dynamodb.ITable;
  /** `${tableArn}/index/${name}` of the indexes the function queries. */
  readonly indexArns: readonly string[];
  readonly knowledgeBase: KnowledgeBaseReference;
  /**
   * Knowledge capture: the function may write and delete objects under
   * `publishedTicketsKeyPrefix` of the document bucket and start a sync of the data source.
   * @default off — no KNOWLEDGE_* settings and no permissions; publishing answers 501
   */
  readonly knowledgeCapture?: KnowledgeCaptureTarget;
  /** Whose access tokens the function accepts (ADR 0028). */
  readonly identity: ApiIdentity;
  /**
   * Rerank retrieved chunks with this Bedrock reranker model (`amazon.rerank-v1:0`,
   * `cohere.rerank-v3-5:0`); the function gets its ARN and the permissions to use it.
   * @default no reranking
   */
  readonly rerankingModelId?: string;
  /**
   * A Bedrock Guardrail on every model call (prompt-attack filter over the retrieved tickets and
   * the inquiry; ADR 0013); the role may apply it.
   * @default none
   */
  readonly guardrail?: ModelGuardrailTarget;
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
  /** Where attachments' bytes go (ADR 0030); the function may put, get and delete there. */
  readonly attachments?: AttachmentBucket;
}

/**
 * The stack's Cognito pool (its access tokens from the listed clients, comma-separated) or an
 * OpenID Connect issuer (its access tokens for the audiences); roles and desks come with the
 * `auth` settings.
 */
export type ApiIdentity =
  | { readonly userPoolId: string; readonly clientIds: string }
  | { readonly issuer: string; readonly audiences: readonly string[] };

/**
 * The API function (all of `/api/*`) behind a streaming, IAM-authenticated Function URL, which
 * only CloudFront (through origin access control) can call. Its role can do exactly what the
 * handler does: read and write the two tables, retrieve from one Knowledge Base, stream one model.
 */
export class ApiFunction extends Construct {
  readonly function: lambda.Function;
  readonly functionUrl: lambda.FunctionUrl;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    const capture = props.knowledgeCapture;
    const modelId = props.settings.model.id;
    const tracing = props.settings.observability?.tracing ?? false;
    const vectorStore = props.settings.knowledgeBase?.vectorStore ?? 'opensearch-serverless';
    const environment = functionEnvironment(
      mergeSettingValues(props.settings, {
        auth: {
          ...('userPoolId' in props.identity
            ? {
                mode: 'cognito' as const,
                userPoolId: props.identity.userPoolId,
                clientId: props.identity.clientIds,
              }
            : {
                mode: 'oidc' as const,
                oidcIssuer: props.identity.issuer,
                oidcAudience: [...props.identity.audiences],
              }),
          ...(capture && { knowledgeEditorGroup: capture.editorGroupName }),
        },
        storage: {
          conversationsTable: props.conversationsTable.tableName,
          turnsTable: props.turnsTable.tableName,
        },
        insights: { table: props.insightsTable.tableName },
        attachments: props.attachments && {
          bucket: props.attachments.bucket.bucketName,
          keyPrefix: props.attachments.keyPrefix,
        },
        knowledgeBase: {
          id: props.knowledgeBase.knowledgeBaseId,
          vectorStore,
          searchType: searchTypeOf(vectorStore),
          // Empty: no reranking (the function reads an empty value as unset).
          rerankingModelArn: props.rerankingModelId
            ? rerankingModelArn(this, props.rerankingModelId)
            : '',
        },
        model: {
          guardrailIdentifier: props.guardrail?.identifier,
          guardrailVersion: props.guardrail?.version,
        },
        knowledge: capture && {
          bucket: capture.documentBucket.bucketName,
          dataSourceId: capture.dataSourceId,
          keyPrefix: publishedTicketsKeyPrefix,
        },
        observability: { tracing },
      }),
    );

    const created = createAppFunctionFromCode(this, {
      // Without tracing the bundle leaves the X-Ray SDK out: less to parse at every cold start.
      code: apiFunctionCode(props.entry, !tracing),
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
        tracing: tracing ? lambda.Tracing.ACTIVE : undefined,
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
    props.attachments?.grantReadWrite(this.role);
    for (const statement of modelInvokeStatements(this, modelId, [
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
        (tracing
          ? ' X-Ray PutTraceSegments and PutTelemetryRecords (active tracing) take no resource.'
          : ''),
    });

    if (grantsModelInAnyRegion(modelId)) {
      Validations.of(this.role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/${foundationModelId(modelId)}]`,
        reason:
          'Cross-Region inference: the inference profile routes to regions AWS may extend; the ' +
          'grant is for this one model and only through this profile (bedrock:InferenceProfileArn).',
      });
    }
  }

  /**
   * Surge alerts (ADR 0033): the function publishes a surge's start to `topic` (the alarm topic,
   * whose KMS key `grantPublish` lets it use), named by `ALARM_TOPIC_ARN`.
   */
  announceSurgesOn(topic: sns.ITopic): void {
    this.function.addEnvironment(functionSettings.surges.alarmTopicArn.variable, topic.topicArn);
    // Spelled out rather than `grantPublish`, whose key grant is the wildcard kms:GenerateDataKey*:
    // publishing to an encrypted topic needs exactly these two on the topic's own key.
    this.role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'AnnounceSurges',
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
      }),
    );
    topic.masterKey?.grant(this.role, 'kms:GenerateDataKey', 'kms:Decrypt');
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
