import { createHash } from 'node:crypto';
import {
  Aspects,
  CfnOutput,
  CfnResource,
  type IAspect,
  RemovalPolicy,
  Stack,
  type StackProps,
} from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type { Construct, IConstruct } from 'constructs';
import type { ScrubSettings } from '../functions/knowledge/personal-data-scrub.js';
import {
  DEFAULT_ATTACHMENTS_KEY_PREFIX,
  functionSettings,
} from '../functions/settings/function-settings.js';
import {
  linkDomainsOf,
  MODEL_INVOCATION_LOGGING_OPT_IN,
  type ServiceDeskConfig,
} from './config.js';
import { AccessLogBucket } from './constructs/access-log-bucket.js';
import {
  ApiFunction,
  type KnowledgeCaptureTarget,
  type ModelGuardrailTarget,
} from './constructs/api-function.js';
import { AttachmentBucket } from './constructs/attachment-bucket.js';
import { Auth, knowledgeEditorGroupName, serviceDeskLeadGroupName } from './constructs/auth.js';
import { ConversationTables } from './constructs/conversation-tables.js';
import { CustomerManagedKey } from './constructs/customer-managed-key.js';
import { KnowledgeBase, type KnowledgeBaseReference } from './constructs/knowledge-base.js';
import type { KnowledgeBaseIngestionLogs } from './constructs/knowledge-base-ingestion-logs.js';
import { KnowledgeSyncCatchUp } from './constructs/knowledge-sync-catch-up.js';
import { ModelGuardrail } from './constructs/model-guardrail.js';
import { ModelInvocationLogging } from './constructs/model-invocation-logging.js';
import { OperationsMonitoring } from './constructs/operations-monitoring.js';
import { RetentionSweeper } from './constructs/retention-sweeper.js';
import { TicketSync } from './constructs/ticket-sync.js';
import { RateLimitWebAcl, webAclSettings } from './constructs/waf.js';
import { type WebAppInput, webAppSource } from './constructs/web-app-source.js';
import { WebHosting } from './constructs/web-hosting.js';
import { stackOutputNames } from './deployed-stack-names.js';
import { readPersonalDataSettings } from './personal-data-settings.js';
import { readTicketCategories } from './ticket-categories.js';

/** Files the stack packages, resolved by the caller (bin/app.ts: against the repository root). */
export interface ServiceDeskPaths {
  /** The API handler module (`functions/api/handler.ts`). */
  readonly apiEntry: string;
  /** The retention sweeper module (`functions/retention/handler.ts`). */
  readonly retentionEntry: string;
  /** The knowledge sync catch-up (`functions/knowledge-sync/handler.ts`). */
  readonly knowledgeSyncEntry: string;
  /** The ticket sync of each `ticketSync` source (`functions/ticket-sync/handler.ts`). */
  readonly ticketSyncEntry: string;
  /** The web app: built by an earlier `npm run build`, or built with Vite during synthesis. */
  readonly webApp: WebAppInput;
  /** The Knowledge Base documents (`data/tickets`); unused with `existingKnowledgeBaseId`. */
  readonly ticketsPath: string;
  /**
   * The OpenSearch vector index custom resource's handler.
   * @default functions/opensearch-index/handler.ts
   */
  readonly vectorIndexEntry?: string;
}

export interface ServiceDeskStackProps extends StackProps {
  readonly config: ServiceDeskConfig;
  readonly paths: ServiceDeskPaths;
  /**
   * A CLOUDFRONT-scope web ACL created elsewhere (config `webAclArn`, or the us-east-1 WAF stack
   * when this stack is in another region).
   * @default a web ACL in this stack when `enableWaf` and the region is us-east-1; else none
   */
  readonly webAclArn?: string;
}

/**
 * The service-desk assistant: web app and API behind one CloudFront distribution, Cognito
 * sign-in, the conversation tables, and a Bedrock Knowledge Base (provisioned, or reused by id).
 * Composition only; each concern lives in lib/constructs/.
 */
export class ServiceDeskStack extends Stack {
  /** The CloudFront distribution's id (the edge-monitoring stack alarms on it). */
  readonly distributionId: string;

  constructor(scope: Construct, id: string, props: ServiceDeskStackProps) {
    super(scope, id, props);
    const { config, paths } = props;
    const removalPolicy =
      config.removalPolicy === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    const logRetention = config.logRetentionDays as logs.RetentionDays;
    // The functions CDK adds (custom-resource providers, BucketDeployment) log here.
    const providerLogGroup = new logs.LogGroup(this, 'ProviderLogs', {
      retention: logRetention,
      removalPolicy,
    });
    Aspects.of(this).add(new ProviderFunctionLogs(providerLogGroup));

    // Audit and keys (docs/deploy.md, "Security review"): the access-log bucket stays on SSE-S3,
    // the one encryption S3 delivers server access logs to; everything else takes the key.
    const accessLogs = config.accessLogs
      ? new AccessLogBucket(this, 'AccessLogs', {
          retentionDays: config.accessLogRetentionDays,
          removalPolicy,
        })
      : undefined;
    const customerKey =
      config.kmsKey === ''
        ? undefined
        : new CustomerManagedKey(this, 'CustomerKey', {
            keyArn: config.kmsKey === 'create' ? undefined : config.kmsKey,
          });
    customerKey?.encryptEveryResourceOf(this, { except: accessLogs ? [accessLogs] : [] });

    const tables = new ConversationTables(this, 'ConversationTables', { removalPolicy });
    new RetentionSweeper(this, 'RetentionSweeper', {
      entry: paths.retentionEntry,
      conversationsTable: tables.conversations,
      turnsTable: tables.turns,
      insightsTable: tables.insights,
      logRetention,
      logRemovalPolicy: removalPolicy,
    });

    let knowledgeBase: KnowledgeBaseReference;
    let ingestionLogs: KnowledgeBaseIngestionLogs | undefined;
    // Knowledge capture: where published tickets go. Off for a reused Knowledge Base unless its
    // bucket and data source are configured (lib/config.ts refuses one without the other).
    let publishTo: Omit<KnowledgeCaptureTarget, 'editorGroupName'> | undefined;
    if (config.existingKnowledgeBaseId) {
      knowledgeBase = KnowledgeBase.fromKnowledgeBaseId(this, config.existingKnowledgeBaseId);
      if (config.existingDocumentBucketName && config.existingDataSourceId) {
        publishTo = {
          documentBucket: s3.Bucket.fromBucketName(
            this,
            'ReusedDocuments',
            config.existingDocumentBucketName,
          ),
          dataSourceId: config.existingDataSourceId,
        };
      }
    } else {
      const provisioned = new KnowledgeBase(this, 'KnowledgeBase', {
        namePrefix: resourceNamePrefix(this.stackName),
        embeddingModelId: config.embeddingModelId,
        ticketsPath: paths.ticketsPath,
        vectorIndexEntry: paths.vectorIndexEntry,
        // 'other' is refused without existingKnowledgeBaseId (lib/config.ts).
        vectorStore: config.vectorStore === 's3-vectors' ? 's3-vectors' : 'opensearch-serverless',
        standbyReplicas: config.standbyReplicas,
        rerankingModelId: config.rerankingModelId || undefined,
        adminRoleArns: [
          ...(config.deploymentRoleArn ? [config.deploymentRoleArn] : []),
          ...config.collectionAdminRoleArns,
        ],
        removalPolicy,
        accessLogs,
        providerLogGroup,
        logRetention,
      });
      ingestionLogs = provisioned.ingestionLogs;
      new CfnOutput(this, stackOutputNames.dataSourceId, { value: provisioned.dataSourceId });
      new CfnOutput(this, stackOutputNames.documentBucket, {
        value: provisioned.documentBucket.bucketName,
      });
      knowledgeBase = provisioned;
      publishTo = {
        documentBucket: provisioned.documentBucket,
        dataSourceId: provisioned.dataSourceId,
      };
    }

    // An external issuer signs staff in by itself: no user pool (ADR 0028).
    const auth = config.authIssuer
      ? undefined
      : new Auth(this, 'Auth', {
          domainPrefix: config.cognitoDomainPrefix,
          allowedEmailDomains: config.allowedEmailDomains,
          removalPolicy,
          logRetention,
          providerLogGroup,
          ...(config.samlMetadataUrl && {
            saml: {
              metadataUrl: config.samlMetadataUrl,
              providerName: config.samlProviderName,
              groupsAttribute: config.samlGroupsAttribute,
            },
          }),
        });

    const guardrail = modelGuardrailOf(this, config);
    const attachments = new AttachmentBucket(this, 'Attachments', {
      retentionDays: config.retentionDays,
      keyPrefix: DEFAULT_ATTACHMENTS_KEY_PREFIX,
      removalPolicy,
      accessLogs,
    });
    const api = new ApiFunction(this, 'Api', {
      entry: paths.apiEntry,
      settings: {
        model: {
          id: config.modelId,
          dailyTokenBudget: config.dailyTokenBudget,
          prices: config.modelPrices,
          promptCaching: config.promptCaching,
          promptCacheModels: config.promptCacheModels,
        },
        chat: {
          numberOfResults: config.numberOfResults,
          queryExpansion: config.queryExpansion,
          allowedLinkDomains: linkDomainsOf(config),
        },
        stream: { padding: config.streamPadding, paddingBytes: config.streamPaddingBytes },
        storage: { retentionDays: config.retentionDays },
        insights: { examples: config.insightsExamples, gapScore: config.insightsGapScore },
        surges: {
          minStaff: config.surgeMinStaff,
          windowMinutes: config.surgeWindowMinutes,
          alerts: config.surgeAlerts,
        },
        knowledgeBase: { vectorStore: config.vectorStore },
        knowledge: {
          // The categories of the tickets this stack deploys; a reused Knowledge Base's are unknown.
          ticketCategories: config.existingKnowledgeBaseId
            ? []
            : readTicketCategories(paths.ticketsPath),
          // Checked and made compact JSON by readPersonalDataSettings, written back as it is.
          personalDataSettings:
            config.personalDataSettings === undefined
              ? undefined
              : (JSON.parse(
                  readPersonalDataSettings(config.personalDataSettings),
                ) as ScrubSettings),
        },
        auth: roleSettingsOf(config),
        observability: { tracing: config.tracing },
      },
      conversationsTable: tables.conversations,
      turnsTable: tables.turns,
      insightsTable: tables.insights,
      indexArns: tables.indexArns,
      knowledgeBase,
      knowledgeCapture: publishTo && {
        ...publishTo,
        editorGroupName: knowledgeEditorGroupName,
      },
      identity: auth
        ? {
            userPoolId: auth.userPool.userPoolId,
            // Tokens of both clients are accepted (the function reads a comma-separated list).
            clientIds: `${auth.userPoolClientId},${auth.acceptanceTestClientId}`,
          }
        : {
            issuer: config.authIssuer ?? '',
            audiences:
              config.authAudience.length > 0 ? config.authAudience : [config.authClientId ?? ''],
          },
      rerankingModelId: config.rerankingModelId || undefined,
      guardrail,
      attachments,
      reservedConcurrency: config.apiReservedConcurrency,
      logRetention,
      logRemovalPolicy: removalPolicy,
    });
    const knowledgeSyncCatchUp =
      publishTo &&
      new KnowledgeSyncCatchUp(this, 'KnowledgeSyncCatchUp', {
        entry: paths.knowledgeSyncEntry,
        turnsTable: tables.turns,
        knowledgeBase,
        dataSourceId: publishTo.dataSourceId,
        logRetention,
        logRemovalPolicy: removalPolicy,
      });

    // lib/config.ts refuses ticketSync with a reused Knowledge Base that has no bucket.
    const ticketSync =
      publishTo && config.ticketSync.length > 0
        ? new TicketSync(this, 'TicketSync', {
            entry: paths.ticketSyncEntry,
            sources: config.ticketSync,
            maxLagMinutes: config.ticketSyncMaxLagMinutes,
            documentBucket: publishTo.documentBucket,
            knowledgeBase,
            dataSourceId: publishTo.dataSourceId,
            turnsTable: tables.turns,
            personalDataSettings:
              config.personalDataSettings === undefined
                ? undefined
                : readPersonalDataSettings(config.personalDataSettings),
            removalPolicy,
            logRetention,
          })
        : undefined;

    let webAclArn = props.webAclArn ?? config.webAclArn;
    if (!webAclArn && config.enableWaf) {
      webAclArn = new RateLimitWebAcl(this, 'WebAcl', webAclSettings(config)).webAclArn;
    }

    const web = new WebHosting(this, 'Web', {
      webApp: webAppSource(paths.webApp),
      functionUrl: api.functionUrl,
      auth: auth
        ? {
            kind: 'cognito',
            authority: auth.authority,
            clientId: auth.userPoolClientId,
            domainUrl: auth.domainUrl,
            userPoolId: auth.userPool.userPoolId,
            identityProviderName: auth.identityProviderName,
          }
        : {
            kind: 'oidc',
            issuer: config.authIssuer ?? '',
            clientId: config.authClientId ?? '',
            scope: config.authScope,
            extraOrigins: config.authExtraOrigins,
          },
      webAclArn,
      customDomain:
        config.domainName && config.certificateArn
          ? { domainName: config.domainName, certificateArn: config.certificateArn }
          : undefined,
      accessLogs,
      removalPolicy,
      providerLogGroup,
    });
    auth?.allowSignInFrom(web.siteUrl);
    this.distributionId = web.distribution.distributionId;

    const monitoring = new OperationsMonitoring(this, 'Monitoring', {
      apiFunction: api.function,
      conversationsTable: tables.conversations,
      turnsTable: tables.turns,
      distribution: web.distribution,
      knowledgeBaseIngestion: ingestionLogs,
      knowledgeSyncCatchUp: knowledgeSyncCatchUp?.function,
      alarmEmail: config.alarmEmail,
      ttftAlarmMs: config.ttftAlarmMs,
    });
    // A surge's start goes to the same topic as the alarms (ADR 0033).
    if (config.surgeAlerts) api.announceSurgesOn(monitoring.topic);
    ticketSync?.allowFreshnessRead(api);
    for (const alarm of ticketSync?.alarms() ?? []) monitoring.addAlarm(alarm.id, alarm.options);
    if (config.modelInvocationLogging === MODEL_INVOCATION_LOGGING_OPT_IN) {
      // Under Monitoring/ModelInvocation, where it was created before it moved to S3: the custom
      // resource keeps its logical id, so an existing stack updates the account's setting instead
      // of creating it anew and then deleting the old resource (whose Delete turned logging off).
      new ModelInvocationLogging(monitoring, 'ModelInvocation', {
        key: customerKey?.key,
        retentionDays: config.accessLogRetentionDays,
        accessLogs,
        providerLogGroup,
      });
    }

    const outputs: Record<string, string> = {
      [stackOutputNames.siteUrl]: web.siteUrl,
      ...(auth && {
        [stackOutputNames.userPoolId]: auth.userPool.userPoolId,
        [stackOutputNames.userPoolClientId]: auth.userPoolClientId,
        [stackOutputNames.acceptanceTestClientId]: auth.acceptanceTestClientId,
        [stackOutputNames.cognitoDomain]: auth.domainUrl,
        [stackOutputNames.knowledgeEditorGroup]: auth.knowledgeEditorGroup.ref,
        [stackOutputNames.serviceDeskLeadGroup]: auth.serviceDeskLeadGroup.ref,
      }),
      [stackOutputNames.authIssuer]: auth ? auth.authority : (config.authIssuer ?? ''),
      [stackOutputNames.conversationsTable]: tables.conversations.tableName,
      [stackOutputNames.turnsTable]: tables.turns.tableName,
      [stackOutputNames.insightsTable]: tables.insights.tableName,
      [stackOutputNames.knowledgeBaseId]: knowledgeBase.knowledgeBaseId,
      [stackOutputNames.functionUrl]: api.functionUrl.url,
      [stackOutputNames.functionName]: api.function.functionName,
      [stackOutputNames.vectorStore]: config.vectorStore,
    };
    if (ticketSync) {
      outputs[stackOutputNames.ticketSyncTable] = ticketSync.table.tableName;
      outputs[stackOutputNames.ticketSyncSources] = config.ticketSync
        .map((source) => source.id)
        .join(',');
    }
    for (const [name, value] of Object.entries(outputs)) {
      new CfnOutput(this, name, { value });
    }
  }
}

/**
 * What the role claim's values mean: with an external issuer its claim and the editor and lead
 * role values (defaulting to the group names); with the pool its groups; desks in both.
 */
function roleSettingsOf(config: ServiceDeskConfig) {
  return {
    serviceDeskLeadGroup: serviceDeskLeadGroupName,
    deskRoles: functionSettings.auth.deskRoles.schema.parse(config.authDeskRoles),
    ...(config.authIssuer && {
      roleClaim: config.authRoleClaim,
      editorRoles: config.authEditorRoles,
      leadRoles: config.authLeadRoles,
    }),
  };
}

/**
 * A lower-case prefix (3–20 characters) for account-unique names such as the OpenSearch
 * collection: the stack name, or, when it is too long, its start plus a hash of the whole name,
 * so that two long stack names sharing a start do not collide.
 */
export function resourceNamePrefix(stackName: string): string {
  // Single hyphens only: Bedrock names allow no `--`.
  const safe = stackName
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/-$/, '');
  const base = /^[a-z]/.test(safe) ? safe : `s${safe}`;
  if (base.length >= 3 && base.length <= 20) return base;
  const hash = createHash('sha256').update(stackName).digest('hex').slice(0, 6);
  return `${base.slice(0, 13).replace(/-+$/, '')}-${hash}`;
}

/**
 * Sends every Lambda function of a stack that has no log group of its own to `logGroup`: the
 * functions CDK adds itself (custom-resource providers such as `Custom::S3AutoDeleteObjects`,
 * whose L1 has no log settings), so their logs expire like the app's instead of never.
 * The singleton L2 providers (BucketDeployment, AwsCustomResource) are given the same group
 * through their `logGroup` prop; without it `@aws-cdk/aws-lambda:useCdkManagedLogGroup` names a
 * group `/aws/lambda/<function>`, which collides with the one Lambda created on a stack that has
 * already run the function.
 *
 * @example
 * Aspects.of(stack).add(new ProviderFunctionLogs(providerLogGroup));
 */
class ProviderFunctionLogs implements IAspect {
  constructor(private readonly logGroup: logs.ILogGroup) {}

  visit(node: IConstruct): void {
    if (!(node instanceof CfnResource) || node.cfnResourceType !== 'AWS::Lambda::Function') return;
    if (node instanceof lambda.CfnFunction) {
      const config = node.loggingConfig as lambda.CfnFunction.LoggingConfigProperty | undefined;
      if (!config?.logGroup)
        node.loggingConfig = { ...config, logGroup: this.logGroup.logGroupName };
      return;
    }
    // CustomResourceProvider functions are plain CfnResources with a Basic execution role
    // (logs:* on any group), so pointing them at the group is all they need.
    node.addPropertyOverride('LoggingConfig.LogGroup', this.logGroup.logGroupName);
  }
}

/** The guardrail of `config.guardrail`: created here, an existing one, or none. */
function modelGuardrailOf(
  stack: Stack,
  config: ServiceDeskConfig,
): ModelGuardrailTarget | undefined {
  if (config.guardrail === '') return undefined;
  if (config.guardrail === 'create') return new ModelGuardrail(stack, 'ModelGuardrail').target;
  const arn = config.guardrail.startsWith('arn:')
    ? config.guardrail
    : stack.formatArn({
        service: 'bedrock',
        resource: 'guardrail',
        resourceName: config.guardrail,
      });
  return { identifier: config.guardrail, version: config.guardrailVersion, arn };
}
