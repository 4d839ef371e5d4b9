import { ArnFormat, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import {
  syncBacklogKey,
  ticketSyncTable,
} from '../../functions/adapters/dynamodb/table-definitions.js';
import {
  METRICS_NAMESPACE,
  METRICS_SERVICE,
  ticketSyncMetrics,
} from '../../functions/observability/metric-catalog.js';
import { functionEnvironment } from '../../functions/settings/function-settings.js';
import {
  rateMinutes,
  type TicketSyncSource,
} from '../../functions/ticket-sync/sync-source-settings.js';
import { syncedTicketsKeyPrefix } from '../deployed-stack-names.js';
import { resourceAsNagRendersIt } from '../nag-acknowledgements.js';
import type { AlarmOptions } from './alarm-topic.js';
import { analyzerDictionaryHooks } from './api-function.js';
import { createAppFunction, nodeFunctionBundling } from './app-function.js';
import { toAttribute } from './conversation-tables.js';
import type { KnowledgeBaseReference } from './knowledge-base.js';

export interface TicketSyncProps {
  /** The handler module (`functions/ticket-sync/handler.ts`). */
  readonly entry: string;
  /** The `ticketSync` entries, validated (lib/config.ts). */
  readonly sources: readonly TicketSyncSource[];
  /** Lag alarm threshold of an entry without its own `maxLagMinutes`. */
  readonly maxLagMinutes: number;
  readonly documentBucket: s3.IBucket;
  readonly knowledgeBase: KnowledgeBaseReference;
  readonly dataSourceId: string;
  /** Holds the owed-sync mark the sync catch-up starts a sync for (ADR 0011). */
  readonly turnsTable: dynamodb.ITable;
  /** The personal-data scrub settings as compact JSON (`personalDataSettings`), if any. */
  readonly personalDataSettings?: string;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  readonly logRetention?: logs.RetentionDays;
}

/** One source's function, its schedules, and what its alarms watch. */
export interface SyncedSource {
  readonly source: TicketSyncSource;
  readonly function: nodejs.NodejsFunction;
  readonly schedules: readonly events.Rule[];
}

/**
 * The deployed ticket sync (ADR 0032): the TicketSync table (cursors, leases, status, content
 * hashes) and, per `ticketSync` entry, a function run on the entry's schedule (and, slower, its
 * reconciliation) that may read its one secret, its own partition of the table, and write its
 * own folder of the document bucket (`tickets/imported/<id>/`) — nothing else.
 */
export class TicketSync extends Construct {
  readonly table: dynamodb.Table;
  readonly sources: readonly SyncedSource[];
  private readonly maxLagMinutes: number;

  constructor(scope: Construct, id: string, props: TicketSyncProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.maxLagMinutes = props.maxLagMinutes;
    this.table = new dynamodb.Table(this, ticketSyncTable.baseName, {
      partitionKey: toAttribute(ticketSyncTable.partitionKey),
      sortKey: toAttribute(ticketSyncTable.sortKey),
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: ticketSyncTable.timeToLiveAttribute,
      removalPolicy,
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
    });
    this.sources = props.sources.map((source) => this.addSource(source, props));
  }

  private addSource(source: TicketSyncSource, props: TicketSyncProps): SyncedSource {
    const scope = new Construct(this, pascalCase(source.id));
    const keyPrefix = syncedTicketsKeyPrefix(source.id);
    const created = createAppFunction(scope, {
      entry: props.entry,
      description: `Service-desk ticket sync: pulls ${source.id} (${source.system}) into the Knowledge Base`,
      // The person-name analyzer's dictionary is held in memory while records are scrubbed.
      memorySize: 1536,
      // Lambda's limit: a first run over a large system stops before it and resumes next time.
      timeout: Duration.minutes(15),
      environment: {
        TICKET_SYNC_SOURCE: JSON.stringify(source),
        TICKET_SYNC_TABLE: this.table.tableName,
        KNOWLEDGE_BUCKET: props.documentBucket.bucketName,
        KNOWLEDGE_KEY_PREFIX: keyPrefix,
        KNOWLEDGE_BASE_ID: props.knowledgeBase.knowledgeBaseId,
        KNOWLEDGE_DATA_SOURCE_ID: props.dataSourceId,
        TURNS_TABLE: props.turnsTable.tableName,
        ...(props.personalDataSettings && { PERSONAL_DATA_SETTINGS: props.personalDataSettings }),
      },
      logRetention: props.logRetention,
      logRemovalPolicy: props.removalPolicy,
      functionProps: {
        // A failed run is not retried: the next scheduled run resumes at the cursor.
        retryAttempts: 0,
        bundling: { ...nodeFunctionBundling, commandHooks: analyzerDictionaryHooks },
      },
    });
    const { role } = created;
    const stack = Stack.of(this);
    role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'ReadTheSourcesCredentials',
        actions: ['secretsmanager:GetSecretValue'],
        resources: [secretArn(stack, source.secret)],
      }),
    );
    role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'KeepTheSourcesSyncState',
        actions: [
          'dynamodb:GetItem',
          'dynamodb:PutItem',
          'dynamodb:UpdateItem',
          'dynamodb:Query',
          'dynamodb:BatchGetItem',
          'dynamodb:BatchWriteItem',
        ],
        resources: [this.table.tableArn],
        conditions: { 'ForAllValues:StringEquals': { 'dynamodb:LeadingKeys': [source.id] } },
      }),
    );
    const sourceObjects = props.documentBucket.arnForObjects(`${keyPrefix}*`);
    role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'WriteTheSourcesTickets',
        actions: ['s3:PutObject', 's3:DeleteObject'],
        resources: [sourceObjects],
      }),
    );
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${resourceAsNagRendersIt(role, sourceObjects)}]`,
      reason:
        'The sync writes <issueId>.md and its sidecar for whichever tickets the system changed, ' +
        `so the names are unknown at synth time; PutObject and DeleteObject only, under ${keyPrefix} ` +
        'of the document bucket.',
    });
    role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'StartOneSyncPerRun',
        actions: ['bedrock:StartIngestionJob'],
        resources: [props.knowledgeBase.knowledgeBaseArn],
      }),
    );
    role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'MarkTheSyncOwed',
        actions: ['dynamodb:UpdateItem'],
        resources: [props.turnsTable.tableArn],
        conditions: {
          'ForAllValues:StringEquals': {
            'dynamodb:LeadingKeys': [syncBacklogKey.conversationKey],
          },
        },
      }),
    );

    const schedule = (id: string, expression: string, mode: 'pull' | 'reconcile') =>
      new events.Rule(scope, id, {
        description: `Ticket sync of ${source.id}: ${mode === 'pull' ? 'what changed' : 'ids the system no longer has'}`,
        schedule: events.Schedule.expression(expression),
        targets: [
          new targets.LambdaFunction(created.function, {
            event: events.RuleTargetInput.fromObject({ mode }),
            retryAttempts: 0,
          }),
        ],
      });
    const schedules = [schedule('Schedule', source.schedule, 'pull')];
    if (source.reconcileSchedule) {
      schedules.push(schedule('ReconcileSchedule', source.reconcileSchedule, 'reconcile'));
    }
    return { source, function: created.function, schedules };
  }

  /**
   * Lets the API function read each source's status for the insights page (`GET /api/insights`,
   * knowledge freshness): BatchGetItem on the sources' partitions, and the settings naming them.
   */
  allowFreshnessRead(api: { readonly function: lambda.Function; readonly role: iam.IRole }): void {
    const environment = functionEnvironment({
      ticketSync: {
        table: this.table.tableName,
        sources: this.sources.map(({ source }) => ({
          id: source.id,
          system: source.system,
          maxLagMinutes: source.maxLagMinutes ?? this.maxLagMinutes,
        })),
      },
    });
    for (const [name, value] of Object.entries(environment))
      api.function.addEnvironment(name, value);
    api.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'ReadTicketSyncStatus',
        actions: ['dynamodb:BatchGetItem'],
        resources: [this.table.tableArn],
        conditions: {
          'ForAllValues:StringEquals': {
            'dynamodb:LeadingKeys': this.sources.map(({ source }) => source.id),
          },
        },
      }),
    );
  }

  /**
   * The alarms of every source, for the stack's alarm topic (`OperationsMonitoring.addAlarm`):
   * repeated failures, a refused credential, and a lag past `maxLagMinutes`.
   */
  alarms(): { readonly id: string; readonly options: AlarmOptions }[] {
    return this.sources.flatMap(({ source, function: fn }) => {
      const period = alarmPeriodOf(source.schedule);
      const name = `TicketSync${pascalCase(source.id)}`;
      const maxLagMinutes = source.maxLagMinutes ?? this.maxLagMinutes;
      return [
        {
          id: `${name}Failures`,
          options: {
            metric: fn.metricErrors({ period, statistic: 'Sum' }),
            threshold: 1,
            evaluationPeriods: 3,
            datapointsToAlarm: 2,
            description: `Ticket sync of ${source.id}: two of its last three runs failed; its log group says why. The cursor stays where it was.`,
          },
        },
        {
          id: `${name}AuthFailed`,
          options: {
            metric: syncMetric(ticketSyncMetrics.authFailures.name, source.id, 'Sum', period),
            threshold: 1,
            evaluationPeriods: 1,
            description: `Ticket sync of ${source.id}: ${source.system} refused the credentials (401/403). Update the secret ${source.secret} (docs/operations.md, "Ticket sync"); nothing was written.`,
          },
        },
        {
          id: `${name}Lag`,
          options: {
            metric: syncMetric(ticketSyncMetrics.lag.name, source.id, 'Maximum', period),
            threshold: maxLagMinutes * 60,
            evaluationPeriods: 1,
            description: `Ticket sync of ${source.id}: the knowledge is more than ${maxLagMinutes} minutes behind ${source.system}.`,
          },
        },
      ];
    });
  }
}

/**
 * A secret's ARN for the policy: the ARN as given, or, for a name, the name with the six random
 * characters Secrets Manager appends (`-??????`), in this stack's account and region.
 */
export function secretArn(stack: Stack, secret: string): string {
  if (secret.startsWith('arn:')) return secret;
  return stack.formatArn({
    service: 'secretsmanager',
    resource: 'secret',
    resourceName: `${secret}-??????`,
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

/**
 * The period the alarms of a source count in: about one run (a `rate(…)` between 5 minutes and
 * 6 hours), or an hour for a cron schedule — so three periods hold about three runs.
 */
export function alarmPeriodOf(schedule: string): Duration {
  const minutes = rateMinutes(schedule);
  if (minutes === undefined) return Duration.hours(1);
  return Duration.minutes(Math.min(360, Math.max(5, minutes)));
}

function syncMetric(
  metricName: string,
  sourceId: string,
  statistic: string,
  period: Duration,
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: METRICS_SERVICE, source: sourceId },
    statistic,
    period,
  });
}

/** `service-now-eu` → `ServiceNowEu`: construct ids and alarm names. */
function pascalCase(id: string): string {
  return id
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
