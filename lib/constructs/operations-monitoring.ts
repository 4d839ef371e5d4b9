import { Duration, Stack, Token } from 'aws-cdk-lib';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import {
  chatMetrics,
  feedbackMetrics,
  knowledgeMetrics,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
} from '../../functions/observability/metric-catalog.js';
import {
  type AlarmOptions,
  AlarmTopic,
  cloudFront5xxAlarmOptions,
  cloudFront5xxErrorRate,
  cloudFrontMetricsRegion,
} from './alarm-topic.js';

/** The DynamoDB operations the API function and the retention sweeper call (SystemErrors). */
const tableOperations = [
  dynamodb.Operation.GET_ITEM,
  dynamodb.Operation.BATCH_GET_ITEM,
  dynamodb.Operation.QUERY,
  dynamodb.Operation.PUT_ITEM,
  dynamodb.Operation.UPDATE_ITEM,
  dynamodb.Operation.DELETE_ITEM,
  dynamodb.Operation.BATCH_WRITE_ITEM,
  dynamodb.Operation.TRANSACT_WRITE_ITEMS,
];

export interface OperationsMonitoringProps {
  /** The streaming API function. */
  readonly apiFunction: lambda.Function;
  readonly conversationsTable: dynamodb.ITable;
  readonly turnsTable: dynamodb.ITable;
  readonly distribution: cloudfront.IDistribution;
  /**
   * The provisioned Knowledge Base's ingestion log metrics: alarm on failed documents or jobs.
   * @default none (a reused Knowledge Base is not this stack's to log)
   */
  readonly knowledgeBaseIngestion?: {
    readonly failures: cloudwatch.IMetric;
    readonly documentsIgnored: cloudwatch.IMetric;
  };
  /**
   * Knowledge capture's sync catch-up, when capture is on: alarm when it keeps failing, and when
   * a published ticket has waited over an hour for its sync. @default none
   */
  readonly knowledgeSyncCatchUp?: lambda.IFunction;
  /** Subscribe this address to the alarm topic (it must confirm the subscription). @default none */
  readonly alarmEmail?: string;
  /** Alarm when the p90 time to first token stays above this many milliseconds. @default 15000 */
  readonly ttftAlarmMs?: number;
}

/**
 * Operations monitoring: one SNS topic every alarm notifies, the alarms (API function, CloudFront,
 * Bedrock through the chat metrics, DynamoDB, time to first token), one dashboard of the chat
 * metrics (functions/observability/metric-catalog.ts).
 */
export class OperationsMonitoring extends Construct {
  readonly topic: sns.Topic;
  readonly dashboard: cloudwatch.Dashboard;
  /** Every alarm, by a short name (the construct id). */
  readonly alarms: Record<string, cloudwatch.Alarm> = {};

  private readonly alarmTopic: AlarmTopic;

  constructor(scope: Construct, id: string, props: OperationsMonitoringProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const fn = props.apiFunction;

    this.alarmTopic = new AlarmTopic(this, { alarmEmail: props.alarmEmail });
    this.topic = this.alarmTopic.topic;

    // --- API function -------------------------------------------------------------------------
    // Errors counts invocations that failed as a whole (an unhandled rejection, a timeout, an
    // out-of-memory); a chat that fails mid-stream sends an `error` event and is counted by
    // ChatFailed instead. Three in five minutes is past a one-off cold-start hiccup.
    this.addAlarm('ApiErrors', {
      metric: fn.metricErrors({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 3,
      evaluationPeriods: 1,
      description: 'API function invocations failed (Lambda Errors >= 3 in 5 minutes).',
    });
    // Any throttle means a chat was refused: the account or reserved concurrency is exhausted.
    this.addAlarm('ApiThrottles', {
      metric: fn.metricThrottles({ period: Duration.minutes(5), statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
      description: 'API function invocations were throttled (Lambda Throttles >= 1 in 5 minutes).',
    });
    // p99 duration at 80% of the timeout: answers are about to be cut off (a timed-out stream
    // loses its final `result` event). Two of three 5-minute periods, as p99 of few chats is noisy.
    const timeoutMs = (fn.timeout ?? Duration.seconds(3)).toMilliseconds();
    this.addAlarm('ApiDurationNearTimeout', {
      metric: fn.metricDuration({ period: Duration.minutes(5), statistic: 'p99' }),
      threshold: Math.round(timeoutMs * 0.8),
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      description: `API function p99 duration is at 80% of its ${timeoutMs / 1000} s timeout.`,
    });

    // --- CloudFront ---------------------------------------------------------------------------
    // CloudFront metrics exist only in us-east-1 and a metric alarm must live in its metric's
    // region: in us-east-1 the alarm is here; elsewhere the app adds an edge-monitoring stack in
    // us-east-1 for it (`EdgeMonitoringStack` in lib/service-desk-app.ts). The dashboard shows the rate either way.
    // A token region (environment-agnostic stack) is treated as "not us-east-1".
    const distribution5xx = cloudFront5xxErrorRate(props.distribution.distributionId);
    if (!Token.isUnresolved(stack.region) && stack.region === cloudFrontMetricsRegion) {
      this.addAlarm(
        'CloudFront5xxErrorRate',
        cloudFront5xxAlarmOptions(props.distribution.distributionId),
      );
    }

    // --- Bedrock (the function's chat metrics) --------------------------------------------------
    // Failed chats only: Bedrock's own AWS/Bedrock metrics count every caller in the account.
    this.addAlarm('ModelThrottled', {
      metric: chatMetric(chatMetrics.modelThrottled.name, 'Sum'),
      threshold: 3,
      evaluationPeriods: 1,
      description: 'Chats failed because Bedrock throttled the model (>= 3 in 5 minutes).',
    });
    this.addAlarm('ModelErrors', {
      metric: chatMetric(chatMetrics.modelErrors.name, 'Sum'),
      threshold: 3,
      evaluationPeriods: 1,
      description: 'Chats failed on a model error other than throttling (>= 3 in 5 minutes).',
    });
    // Sustained slowness, not one slow answer: p90 above the limit for three 5-minute periods.
    const ttftAlarmMs = props.ttftAlarmMs ?? 15_000;
    this.addAlarm('TimeToFirstToken', {
      metric: chatMetric(chatMetrics.timeToFirstToken.name, 'p90'),
      threshold: ttftAlarmMs,
      evaluationPeriods: 3,
      description: `p90 time to first token above ${ttftAlarmMs} ms for 15 minutes.`,
    });

    // --- DynamoDB -----------------------------------------------------------------------------
    // On-demand tables throttle only past their partition or account limits: any throttle or
    // service-side error is worth a look.
    for (const [name, table] of [
      ['Conversations', props.conversationsTable],
      ['Turns', props.turnsTable],
    ] as const) {
      this.addAlarm(`${name}TableThrottles`, {
        metric: tableThrottles(table, name.toLowerCase()),
        threshold: 1,
        evaluationPeriods: 1,
        description: `${name} table read or write requests were throttled (>= 1 in 5 minutes).`,
      });
      this.addAlarm(`${name}TableSystemErrors`, {
        metric: table.metricSystemErrorsForOperations({
          operations: tableOperations,
          period: Duration.minutes(5),
        }),
        threshold: 1,
        evaluationPeriods: 1,
        description: `${name} table returned HTTP 500 (SystemErrors >= 1 in 5 minutes).`,
      });
    }

    // --- Knowledge Base ingestion ---------------------------------------------------------------
    // Bedrock publishes no ingestion metric and no ingestion event; its ingestion log (vended
    // delivery, counted by metric filters: knowledge-base-ingestion-logs.ts) is the signal. Any
    // failed document or job: a ticket answers can no longer cite.
    // https://docs.aws.amazon.com/bedrock/latest/userguide/knowledge-bases-logging.html
    if (props.knowledgeBaseIngestion) {
      this.addAlarm('KnowledgeBaseIngestionFailed', {
        metric: props.knowledgeBaseIngestion.failures,
        threshold: 1,
        evaluationPeriods: 1,
        description:
          'Knowledge Base ingestion: a document or an ingestion job failed (>= 1 in 5 minutes); ' +
          'run npm run ingest -- --latest for the documents and reasons.',
      });
    }

    // --- Knowledge capture's sync catch-up ----------------------------------------------------
    // It reports how long a sync has been owed on every run that finds one; a running job takes
    // minutes, so an hour means the catch-up cannot start it (a permission, a data source
    // deleted) and published tickets stay unsearchable. A catch-up that fails before it can
    // report (its settings, its read of the mark) sends no data at all, which the overdue alarm
    // treats as fine: its own errors, three runs in a row, cover that.
    if (props.knowledgeSyncCatchUp) {
      this.addAlarm('KnowledgeSyncCatchUpErrors', {
        metric: props.knowledgeSyncCatchUp.metricErrors({
          period: Duration.minutes(5),
          statistic: 'Sum',
        }),
        threshold: 1,
        evaluationPeriods: 3,
        description:
          'Knowledge capture: the sync catch-up function failed in three 5-minute periods in a ' +
          'row; see its log group. Published tickets may not become searchable.',
      });
      this.addAlarm('KnowledgeSyncOverdue', {
        metric: chatMetric(knowledgeMetrics.syncOwedSeconds.name, 'Maximum'),
        threshold: 3600,
        evaluationPeriods: 1,
        description:
          'Knowledge capture: a published ticket has waited over an hour for its Knowledge Base ' +
          'sync; the sync catch-up function logs why (npm run ingest starts one by hand).',
      });
    }

    this.dashboard = this.createDashboard(props, distribution5xx);
  }

  /** An alarm on the stack's topic (the ticket sync adds its sources' alarms here). */
  addAlarm(id: string, options: AlarmOptions): void {
    this.alarms[id] = this.alarmTopic.addAlarm(this, id, options);
  }

  private createDashboard(
    props: OperationsMonitoringProps,
    distribution5xx: cloudwatch.Metric,
  ): cloudwatch.Dashboard {
    const fn = props.apiFunction;
    const outcome = chatMetrics.outcome;
    const graph = (title: string, left: cloudwatch.IMetric[], right?: cloudwatch.IMetric[]) =>
      new cloudwatch.GraphWidget({ title, left, right, width: 8, height: 6 });
    const percentiles = (name: string) => [
      chatMetric(name, 'p50', `${name} p50`),
      chatMetric(name, 'p90', `${name} p90`),
    ];
    const sums = (...names: string[]) => names.map((name) => chatMetric(name, 'Sum'));

    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(24),
    });
    dashboard.addWidgets(
      graph(
        'Chat outcomes',
        sums(
          outcome.complete.name,
          outcome.clarification.name,
          outcome.truncated.name,
          outcome.stopped.name,
          outcome.failed.name,
        ),
      ),
      graph('Time to first token (ms)', percentiles(chatMetrics.timeToFirstToken.name)),
      graph('Retrieval and model latency (ms)', [
        ...percentiles(chatMetrics.retrievalLatency.name),
        ...percentiles(chatMetrics.modelLatency.name),
      ]),
    );
    dashboard.addWidgets(
      graph(
        'Tokens and estimated cost',
        sums(
          chatMetrics.inputTokens.name,
          chatMetrics.outputTokens.name,
          chatMetrics.cacheReadInputTokens.name,
          chatMetrics.cacheWriteInputTokens.name,
        ),
        sums(chatMetrics.estimatedCost.name),
      ),
      graph(
        'Tickets',
        sums(
          chatMetrics.ticketsCited.name,
          chatMetrics.ticketsDropped.name,
          chatMetrics.restrictedFiltered.name,
          chatMetrics.unverifiedReferences.name,
          chatMetrics.unverifiedLinks.name,
        ),
      ),
      graph(
        'Heartbeats and model failures',
        sums(
          chatMetrics.heartbeats.name,
          chatMetrics.modelThrottled.name,
          chatMetrics.modelErrors.name,
        ),
      ),
    );
    dashboard.addWidgets(
      graph(
        'API function errors and throttles',
        [fn.metricErrors({ statistic: 'Sum' }), fn.metricThrottles({ statistic: 'Sum' })],
        [fn.metric('ConcurrentExecutions', { statistic: 'Maximum' })],
      ),
      graph('API function duration (ms)', [
        fn.metricDuration({ statistic: 'p50', label: 'Duration p50' }),
        fn.metricDuration({ statistic: 'p99', label: 'Duration p99' }),
      ]),
      graph(
        'DynamoDB throttles and CloudFront 5xx rate (%)',
        [
          tableThrottles(props.conversationsTable, 'conversations', 'Conversations throttles'),
          tableThrottles(props.turnsTable, 'turns', 'Turns throttles'),
        ],
        [distribution5xx.with({ label: 'CloudFront 5xxErrorRate' })],
      ),
    );
    // What staff make of the answers, and what they give back: verdicts, cards marked as the
    // solution, knowledge drafted and published, and how long a published ticket waited for its
    // sync (the catch-up's metric, empty while no sync is owed).
    const namesOf = (catalog: Record<string, { readonly name: string }>) =>
      Object.values(catalog).map((metric) => metric.name);
    const { syncOwedSeconds, ...knowledgeCounts } = knowledgeMetrics;
    dashboard.addWidgets(
      graph('Answer feedback', sums(...namesOf(feedbackMetrics))),
      graph('Knowledge capture', sums(...namesOf(knowledgeCounts)), [
        chatMetric(syncOwedSeconds.name, 'Maximum', 'Sync owed for (s), max'),
      ]),
      ...(props.knowledgeBaseIngestion
        ? [
            graph('Knowledge Base ingestion', [
              props.knowledgeBaseIngestion.failures,
              props.knowledgeBaseIngestion.documentsIgnored,
            ]),
          ]
        : []),
    );
    return dashboard;
  }
}

/** A chat metric from the catalog, as the API function publishes it (EMF, `service` dimension). */
function chatMetric(metricName: string, statistic: string, label?: string): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service: METRICS_SERVICE },
    statistic,
    period: Duration.minutes(5),
    label,
  });
}

/**
 * Read plus write throttle events of a table, per 5 minutes. `name` keeps the metric ids of two
 * tables apart when one graph shows both.
 */
function tableThrottles(
  table: dynamodb.ITable,
  name: string,
  label?: string,
): cloudwatch.MathExpression {
  const options = { statistic: 'Sum', period: Duration.minutes(5) };
  const read = `${name}ReadThrottles`;
  const write = `${name}WriteThrottles`;
  return new cloudwatch.MathExpression({
    expression: `FILL(${read}, 0) + FILL(${write}, 0)`,
    usingMetrics: {
      [read]: table.metric('ReadThrottleEvents', options),
      [write]: table.metric('WriteThrottleEvents', options),
    },
    period: Duration.minutes(5),
    label,
  });
}
