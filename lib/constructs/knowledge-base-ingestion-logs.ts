import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE } from '../../functions/observability/metric-catalog.js';

/**
 * The metrics the ingestion log's metric filters publish (namespace `ServiceDeskAssistant`, no
 * dimensions), and the patterns that count them.
 *
 * The log events are those of "Monitor knowledge bases using CloudWatch Logs"
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/knowledge-bases-logging.html, "Examples
 * of knowledge base logs"): JSON with `event_type` `StartIngestionJob.StatusChanged` (the job;
 * `event.ingestion_job_status` INGESTION_JOB_STARTED | STOPPED | COMPLETE | FAILED |
 * CRAWLING_COMPLETED) or `StartIngestionJob.ResourceStatusChanged` (one document;
 * `event.status`). The patterns follow that page; no real delivery was observed here (no AWS
 * account), so check them with `aws logs test-metric-filter` against a real event if in doubt.
 */
export const ingestionMetrics = {
  /**
   * A document's processing failed. One document may report a stage failure (e.g.
   * EMBEDDING_FAILED) and then its final status (FAILED): this counts failure events, not
   * distinct documents. The final statuses are those `npm run ingest` lists as failed.
   */
  documentFailures: {
    name: 'IngestionDocumentFailures',
    statuses: [
      'FAILED',
      'PARTIALLY_INDEXED',
      'METADATA_PARTIALLY_INDEXED',
      'EMBEDDING_FAILED',
      'INDEXING_FAILED',
      'DELETION_FAILED',
      'METADATA_UPDATE_FAILED',
      'INGESTION_JOB_FAILED',
    ],
  },
  /** An ingestion job ended FAILED. */
  jobsFailed: { name: 'IngestionJobsFailed' },
  /**
   * A document was skipped (RESOURCE_IGNORED, reason in `status_reasons`): not indexed, so never
   * retrieved. Shown on the dashboard, not alarmed: which files Bedrock reports as ignored
   * (e.g. sidecar metadata) is not documented.
   */
  documentsIgnored: { name: 'IngestionDocumentsIgnored' },
} as const;

const documentEvent = '$.event_type = "StartIngestionJob.ResourceStatusChanged"';

/** `{ … }` JSON filter patterns, exported for the template tests. */
export const ingestionFilterPatterns = {
  documentFailures: `{ (${documentEvent}) && (${ingestionMetrics.documentFailures.statuses
    .map((status) => `$.event.status = "${status}"`)
    .join(' || ')}) }`,
  jobsFailed:
    '{ ($.event_type = "StartIngestionJob.StatusChanged") && ($.event.ingestion_job_status = "FAILED") }',
  documentsIgnored: `{ (${documentEvent}) && ($.event.status = "RESOURCE_IGNORED") }`,
} as const;

export interface KnowledgeBaseIngestionLogsProps {
  readonly knowledgeBaseId: string;
  readonly knowledgeBaseArn: string;
  /** Name of the delivery source and destination (1–60 of `\w-`, unique in the region). */
  readonly deliveryName: string;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * The Knowledge Base's ingestion log (vended log delivery, `APPLICATION_LOGS`) in a log group of
 * this stack, with metric filters that count failed documents, failed jobs and ignored
 * documents. Bedrock publishes no ingestion metric and no ingestion event, so this log is the
 * only push signal of a failed ingestion; OperationsMonitoring alarms on {@link failures}.
 */
export class KnowledgeBaseIngestionLogs extends Construct {
  readonly logGroup: logs.LogGroup;
  /** Failed documents plus failed jobs, per 5 minutes (0 when the log says nothing). */
  readonly failures: cloudwatch.IMetric;
  readonly documentsIgnored: cloudwatch.Metric;

  constructor(scope: Construct, id: string, props: KnowledgeBaseIngestionLogsProps) {
    super(scope, id);
    const stack = Stack.of(this);
    // The name the console gives it; /aws/vendedlogs/ keeps the log group resource policy that
    // delivery needs small (CloudWatch Logs, "Enabling logging from AWS services").
    const logGroupName = `/aws/vendedlogs/bedrock/knowledge-base/APPLICATION_LOGS/${props.knowledgeBaseId}`;
    this.logGroup = new logs.LogGroup(this, 'LogGroup', {
      logGroupName,
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    // No resource policy here: on CreateDelivery, CloudWatch Logs gives the group the one that
    // lets the delivery service write to it (log-group level), as the deploying role may
    // (logs:PutResourcePolicy; the CDK bootstrap role can). An account-level policy from this
    // stack would spend one of the region's ten.
    // https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/AWS-logs-infrastructure-V2-CloudWatchLogs.html
    const source = new logs.CfnDeliverySource(this, 'Source', {
      name: props.deliveryName,
      logType: 'APPLICATION_LOGS',
      resourceArn: props.knowledgeBaseArn,
    });
    const destination = new logs.CfnDeliveryDestination(this, 'Destination', {
      name: props.deliveryName,
      deliveryDestinationType: 'CWL',
      outputFormat: 'json',
      // The log group's ARN without the `:*` that LogGroup.Arn ends with.
      destinationResourceArn: stack.formatArn({
        service: 'logs',
        resource: 'log-group',
        resourceName: this.logGroup.logGroupName,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
    });
    const delivery = new logs.CfnDelivery(this, 'Delivery', {
      deliverySourceName: props.deliveryName,
      deliveryDestinationArn: destination.attrArn,
    });
    // The source is named, not referenced: say that the delivery needs it.
    delivery.addResourceDependency(source);

    const count = (filterId: string, metricName: string, pattern: string) =>
      new logs.MetricFilter(this, filterId, {
        logGroup: this.logGroup,
        filterPattern: logs.FilterPattern.literal(pattern),
        metricNamespace: METRICS_NAMESPACE,
        metricName,
        metricValue: '1',
      }).metric({ statistic: 'Sum', period: Duration.minutes(5) });
    const documentFailures = count(
      'DocumentFailures',
      ingestionMetrics.documentFailures.name,
      ingestionFilterPatterns.documentFailures,
    );
    const jobsFailed = count(
      'JobsFailed',
      ingestionMetrics.jobsFailed.name,
      ingestionFilterPatterns.jobsFailed,
    );
    this.documentsIgnored = count(
      'DocumentsIgnored',
      ingestionMetrics.documentsIgnored.name,
      ingestionFilterPatterns.documentsIgnored,
    );
    this.failures = new cloudwatch.MathExpression({
      expression: 'FILL(documentFailures, 0) + FILL(jobsFailed, 0)',
      usingMetrics: { documentFailures, jobsFailed },
      period: Duration.minutes(5),
      label: 'Ingestion failures',
    });
  }
}
