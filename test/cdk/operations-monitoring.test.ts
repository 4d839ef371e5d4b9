import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  chatMetrics,
  feedbackMetrics,
  knowledgeMetrics,
  METRICS_NAMESPACE,
  METRICS_SERVICE,
} from '../../functions/observability/metric-catalog.js';
import { type CfnJson, renderArn, synthesizeServiceDesk } from './synthesize.js';
import { onlyResource, sdkCallResource } from './template-queries.js';

const topicRef = { Ref: Match.stringLikeRegexp('^MonitoringAlarmTopic') };
const chatDimensions = [{ Name: 'service', Value: METRICS_SERVICE }];

/** The alarm whose logical id starts with `Monitoring<id>`. */
function alarm(template: Template, id: string): CfnJson {
  const matches = Object.entries(template.findResources('AWS::CloudWatch::Alarm')).filter(
    ([logicalId]) => new RegExp(`^Monitoring${id}[0-9A-F]{8}$`).test(logicalId),
  );
  expect(matches, id).toHaveLength(1);
  return (matches[0] as [string, CfnJson])[1].Properties;
}

/** The API function (the one with AUTH_MODE in its environment): logical id and resource. */
function apiFunction(template: Template): [string, CfnJson] {
  const functions = Object.entries(
    template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { AUTH_MODE: 'cognito' } } },
    }),
  );
  expect(functions).toHaveLength(1);
  return functions[0] as [string, CfnJson];
}

/** The metric names a math-expression alarm reads, sorted. */
function mathMetricNames(properties: CfnJson): string[] {
  return (properties.Metrics as CfnJson[])
    .filter((query) => query.MetricStat)
    .map((query) => query.MetricStat.Metric.MetricName as string)
    .sort();
}

describe('ServiceDeskStack (default config): operations monitoring', () => {
  let template: Template;
  let nagFindings: string[];

  beforeAll(() => {
    const synthesized = synthesizeServiceDesk({});
    template = synthesized.template;
    nagFindings = synthesized.nagFindings;
  });

  it('passes cdk-nag with the monitoring resources in the stack', () => {
    expect(nagFindings).toEqual([]);
  });

  it('has one KMS-encrypted alarm topic that CloudWatch may publish to, over TLS only', () => {
    const [, topic] = onlyResource(template, 'AWS::SNS::Topic');
    expect(topic.Properties.KmsMasterKeyId).toEqual({
      'Fn::GetAtt': [expect.stringMatching(/^MonitoringTopicKey/), 'Arn'],
    });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [topicRef],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
          Match.objectLike({
            Effect: 'Allow',
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: 'sns:Publish',
            Condition: { StringEquals: { 'aws:SourceAccount': '123456789012' } },
          }),
        ]),
      },
    });
    template.hasResourceProperties('AWS::KMS::Key', {
      EnableKeyRotation: true,
      KeyPolicy: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Principal: { Service: 'cloudwatch.amazonaws.com' },
            Action: ['kms:Decrypt', 'kms:GenerateDataKey*'],
            Condition: Match.objectLike({
              StringEquals: { 'aws:SourceAccount': '123456789012' },
            }),
          }),
        ]),
      },
    });
  });

  it('subscribes no e-mail address without alarmEmail', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('notifies the topic from every alarm, on alarm and on recovery, treating no data as fine', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm'));
    // 3 API function, 1 CloudFront, 3 chat metrics, 2 × 2 tables, 1 Knowledge Base ingestion,
    // 2 knowledge sync catch-up (its errors, a sync overdue).
    expect(alarms).toHaveLength(14);
    for (const { Properties } of alarms) {
      expect(Properties).toMatchObject({
        TreatMissingData: 'notBreaching',
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
      expect(Properties.AlarmActions.map(renderArn)).toEqual(['<MonitoringAlarmTopic>']);
      expect(Properties.OKActions.map(renderArn)).toEqual(['<MonitoringAlarmTopic>']);
    }
  });

  it('alarms on API function errors, throttles, and p99 duration at 80% of the 5-minute timeout', () => {
    const functionDimension = [
      { Name: 'FunctionName', Value: { Ref: expect.stringMatching(/^ApiFunction/) } },
    ];
    expect(alarm(template, 'ApiErrors')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'Errors',
      Dimensions: functionDimension,
      Statistic: 'Sum',
      Period: 300,
      Threshold: 3,
      EvaluationPeriods: 1,
    });
    expect(alarm(template, 'ApiThrottles')).toMatchObject({
      MetricName: 'Throttles',
      Dimensions: functionDimension,
      Statistic: 'Sum',
      Threshold: 1,
    });
    expect(alarm(template, 'ApiDurationNearTimeout')).toMatchObject({
      MetricName: 'Duration',
      Dimensions: functionDimension,
      ExtendedStatistic: 'p99',
      Threshold: 240_000,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 2,
    });
  });

  it('alarms on the CloudFront 5xx error rate (us-east-1, Region=Global)', () => {
    expect(alarm(template, 'CloudFront5xxErrorRate')).toMatchObject({
      Namespace: 'AWS/CloudFront',
      MetricName: '5xxErrorRate',
      Dimensions: [
        { Name: 'DistributionId', Value: { Ref: expect.stringMatching(/^WebDistribution/) } },
        { Name: 'Region', Value: 'Global' },
      ],
      Statistic: 'Average',
      Threshold: 5,
      EvaluationPeriods: 2,
    });
  });

  it('alarms on model throttling, model errors and p90 time to first token from the chat metrics', () => {
    const chat = { Namespace: METRICS_NAMESPACE, Dimensions: chatDimensions, Period: 300 };
    expect(alarm(template, 'ModelThrottled')).toMatchObject({
      ...chat,
      MetricName: chatMetrics.modelThrottled.name,
      Statistic: 'Sum',
      Threshold: 3,
    });
    expect(alarm(template, 'ModelErrors')).toMatchObject({
      ...chat,
      MetricName: chatMetrics.modelErrors.name,
      Statistic: 'Sum',
      Threshold: 3,
    });
    expect(alarm(template, 'TimeToFirstToken')).toMatchObject({
      ...chat,
      MetricName: chatMetrics.timeToFirstToken.name,
      ExtendedStatistic: 'p90',
      Threshold: 15_000,
      EvaluationPeriods: 3,
    });
  });

  it('alarms on throttles and system errors of both tables', () => {
    for (const table of ['Conversations', 'Turns']) {
      const throttles = alarm(template, `${table}TableThrottles`);
      expect(throttles.Threshold).toBe(1);
      expect(mathMetricNames(throttles)).toEqual(['ReadThrottleEvents', 'WriteThrottleEvents']);
      const tableDimensions = (throttles.Metrics as CfnJson[])
        .filter((query) => query.MetricStat)
        .map((query) => query.MetricStat.Metric.Dimensions);
      expect(tableDimensions).toHaveLength(2);
      for (const dimensions of tableDimensions) {
        expect(dimensions).toEqual([
          {
            Name: 'TableName',
            Value: { Ref: expect.stringMatching(new RegExp(`^ConversationTables${table}`)) },
          },
        ]);
      }
      const systemErrors = alarm(template, `${table}TableSystemErrors`);
      expect(systemErrors.Threshold).toBe(1);
      expect(new Set(mathMetricNames(systemErrors))).toEqual(new Set(['SystemErrors']));
    }
  });

  it('delivers the Knowledge Base ingestion log (APPLICATION_LOGS) to a log group of its own', () => {
    const [, source] = onlyResource(template, 'AWS::Logs::DeliverySource');
    expect(source.Properties).toMatchObject({
      LogType: 'APPLICATION_LOGS',
      ResourceArn: {
        'Fn::GetAtt': [expect.stringMatching(/^KnowledgeBase[0-9A-F]{8}$/), 'KnowledgeBaseArn'],
      },
    });
    const [destinationId, destination] = onlyResource(template, 'AWS::Logs::DeliveryDestination');
    expect(destination.Properties).toMatchObject({
      DeliveryDestinationType: 'CWL',
      Name: source.Properties.Name,
    });
    const [, logGroup] = Object.entries(template.findResources('AWS::Logs::LogGroup')).find(
      ([id]) => id.startsWith('KnowledgeBaseIngestionLogsLogGroup'),
    ) as [string, CfnJson];
    expect(logGroup).toMatchObject({
      Properties: { RetentionInDays: 30 },
      DeletionPolicy: 'Retain',
    });
    expect(renderArn(logGroup.Properties.LogGroupName)).toBe(
      '/aws/vendedlogs/bedrock/knowledge-base/APPLICATION_LOGS/<KnowledgeBase.KnowledgeBaseId>',
    );
    // The group's ARN without LogGroup.Arn's trailing `:*`.
    expect(renderArn(destination.Properties.DestinationResourceArn)).toBe(
      'arn:aws:logs:us-east-1:123456789012:log-group:<KnowledgeBaseIngestionLogsLogGroup>',
    );
    const [, delivery] = onlyResource(template, 'AWS::Logs::Delivery');
    expect(delivery.Properties).toEqual({
      DeliverySourceName: source.Properties.Name,
      DeliveryDestinationArn: { 'Fn::GetAtt': [destinationId, 'Arn'] },
    });
    expect(delivery.DependsOn).toContainEqual(
      expect.stringMatching(/^KnowledgeBaseIngestionLogsSource/),
    );
  });

  it('counts failed documents, failed jobs and ignored documents of the ingestion log', () => {
    const filters = Object.values(template.findResources('AWS::Logs::MetricFilter')).map(
      (resource) => resource.Properties,
    );
    const byMetric: Record<string, { pattern: string; transformation: CfnJson }> =
      Object.fromEntries(
        filters.map((filter) => [
          filter.MetricTransformations[0].MetricName,
          { pattern: filter.FilterPattern, transformation: filter.MetricTransformations[0] },
        ]),
      );
    // The event format of docs.aws.amazon.com/bedrock/latest/userguide/knowledge-bases-logging.html
    expect(byMetric.IngestionJobsFailed?.pattern).toBe(
      '{ ($.event_type = "StartIngestionJob.StatusChanged") && ($.event.ingestion_job_status = "FAILED") }',
    );
    expect(byMetric.IngestionDocumentFailures?.pattern).toBe(
      '{ ($.event_type = "StartIngestionJob.ResourceStatusChanged") && (' +
        [
          'FAILED',
          'PARTIALLY_INDEXED',
          'METADATA_PARTIALLY_INDEXED',
          'EMBEDDING_FAILED',
          'INDEXING_FAILED',
          'DELETION_FAILED',
          'METADATA_UPDATE_FAILED',
          'INGESTION_JOB_FAILED',
        ]
          .map((status) => `$.event.status = "${status}"`)
          .join(' || ') +
        ') }',
    );
    expect(byMetric.IngestionDocumentsIgnored?.pattern).toBe(
      '{ ($.event_type = "StartIngestionJob.ResourceStatusChanged") && ($.event.status = "RESOURCE_IGNORED") }',
    );
    for (const { transformation } of Object.values(byMetric)) {
      expect(transformation).toMatchObject({
        MetricNamespace: METRICS_NAMESPACE,
        MetricValue: '1',
      });
    }
    for (const filter of filters) {
      expect(filter.LogGroupName).toEqual({
        Ref: expect.stringMatching(/^KnowledgeBaseIngestionLogsLogGroup/),
      });
    }
  });

  it('alarms on any failed ingestion document or job, on the alarm topic', () => {
    const ingestion = alarm(template, 'KnowledgeBaseIngestionFailed');
    expect(ingestion).toMatchObject({ Threshold: 1, EvaluationPeriods: 1 });
    expect(mathMetricNames(ingestion)).toEqual([
      'IngestionDocumentFailures',
      'IngestionJobsFailed',
    ]);
    expect(ingestion.Metrics).toContainEqual(
      expect.objectContaining({ Expression: 'FILL(documentFailures, 0) + FILL(jobsFailed, 0)' }),
    );
    for (const query of (ingestion.Metrics as CfnJson[]).filter((entry) => entry.MetricStat)) {
      expect(query.MetricStat).toMatchObject({
        Metric: { Namespace: METRICS_NAMESPACE },
        Stat: 'Sum',
        Period: 300,
      });
    }
    expect(ingestion.AlarmActions.map(renderArn)).toEqual(['<MonitoringAlarmTopic>']);
  });

  it('draws a dashboard of the chat metrics', () => {
    const [, dashboard] = onlyResource(template, 'AWS::CloudWatch::Dashboard');
    const body = renderArn(dashboard.Properties.DashboardBody);
    const outcomes = Object.values(chatMetrics.outcome)
      .map((metric) => metric.name)
      .filter((name) => name !== chatMetrics.outcome.replayed.name);
    for (const name of [
      ...outcomes,
      chatMetrics.timeToFirstToken.name,
      chatMetrics.retrievalLatency.name,
      chatMetrics.modelLatency.name,
      chatMetrics.inputTokens.name,
      chatMetrics.outputTokens.name,
      chatMetrics.cacheReadInputTokens.name,
      chatMetrics.cacheWriteInputTokens.name,
      chatMetrics.estimatedCost.name,
      chatMetrics.ticketsCited.name,
      chatMetrics.ticketsDropped.name,
      chatMetrics.restrictedFiltered.name,
      chatMetrics.unverifiedReferences.name,
      chatMetrics.unverifiedLinks.name,
      chatMetrics.heartbeats.name,
      'ConcurrentExecutions',
      'ReadThrottleEvents',
      ...Object.values(feedbackMetrics).map((metric) => metric.name),
      ...Object.values(knowledgeMetrics).map((metric) => metric.name),
    ]) {
      expect(body, name).toContain(`"${name}"`);
    }
    expect(body).toContain(`"${METRICS_NAMESPACE}"`);
    expect(body).toContain('"stat":"p90"');
  });

  it('does not trace the API function by default, and tells its Tracer so', () => {
    const [, api] = apiFunction(template);
    expect(api.Properties.TracingConfig).toBeUndefined();
    expect(api.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe('false');
    expect(JSON.stringify(template.findResources('AWS::IAM::Policy'))).not.toContain('xray:');
  });

  it('leaves Bedrock model invocation logging alone by default', () => {
    expect(
      Object.values(template.findResources('Custom::AWS')).filter((resource) =>
        renderArn(resource.Properties.Create).includes('ModelInvocationLogging'),
      ),
    ).toEqual([]);
    const loggingIds = [
      ...Object.keys(template.findResources('AWS::S3::Bucket')),
      ...Object.keys(template.findResources('AWS::Logs::LogGroup')),
      ...Object.keys(template.findResources('AWS::IAM::Role')),
    ].filter((id) => id.includes('ModelInvocation'));
    expect(loggingIds).toEqual([]);
  });
});

// One synthesis for every non-default setting (a third would slow the shared CDK run).
describe('ServiceDeskStack in eu-west-1 (alarmEmail, ttftAlarmMs, modelInvocationLogging, tracing): operations monitoring', () => {
  let template: Template;
  let nagFindings: string[];
  let synthesized: ReturnType<typeof synthesizeServiceDesk>;

  beforeAll(() => {
    synthesized = synthesizeServiceDesk({
      alarmEmail: 'ops@example.com',
      ttftAlarmMs: '20000',
      modelInvocationLogging: 'replace-account-setting',
      tracing: 'true',
      region: 'eu-west-1',
      // The KB-less variant, so the AwsCustomResource provider exists only for the logging call.
      existingKnowledgeBaseId: 'ABCDEFGHIJ',
    });
    template = synthesized.template;
    nagFindings = synthesized.nagFindings;
  });

  it('passes cdk-nag with every finding acknowledged', () => {
    expect(nagFindings).toEqual([]);
  });

  it('subscribes the alarm e-mail address to the topic', () => {
    template.resourceCountIs('AWS::SNS::Subscription', 1);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
      TopicArn: topicRef,
    });
  });

  it('traces the API function with X-Ray (active tracing, its role may send segments) and turns its Tracer on', () => {
    const [logicalId, api] = apiFunction(template);
    expect(api.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    expect(api.Properties.Environment.Variables.POWERTOOLS_TRACE_ENABLED).toBe('true');
    const roleRef = api.Properties.Role['Fn::GetAtt'][0];
    const rolePolicies = Object.values(template.findResources('AWS::IAM::Policy')).filter(
      (policy) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleRef }]),
    );
    expect(
      rolePolicies.flatMap((policy) => policy.Properties.PolicyDocument.Statement),
    ).toContainEqual(
      expect.objectContaining({
        Action: ['xray:PutTelemetryRecords', 'xray:PutTraceSegments'],
        Resource: '*',
      }),
    );
    expect(logicalId).toMatch(/^ApiFunction/);
  });

  it('uses the configured time-to-first-token threshold', () => {
    expect(alarm(template, 'TimeToFirstToken').Threshold).toBe(20_000);
  });

  it('points Bedrock model invocation logging at its own bucket under a rotating key of its own, and leaves the setting on delete', () => {
    const logging = sdkCallResource(template, 'PutModelInvocationLoggingConfiguration');
    const create = JSON.parse(renderArn(logging.Properties.Create));
    expect(create).toMatchObject({
      service: 'Bedrock',
      parameters: {
        loggingConfig: {
          s3Config: { bucketName: '<MonitoringModelInvocationBucket>' },
          textDataDeliveryEnabled: true,
        },
      },
    });
    expect(logging.Properties.Delete).toBeUndefined();
    // The logical id it had as a log-group setting, so an existing stack updates it in place
    // (a replaced resource's Delete would run after the new one's Put).
    const [loggingId] = Object.entries(template.findResources('Custom::AWS')).find(
      ([, resource]) => resource === logging,
    ) ?? [''];
    expect(loggingId).toMatch(/^MonitoringModelInvocationLogging[0-9A-F]{8}$/);
    const keys = Object.entries(template.findResources('AWS::KMS::Key')).filter(([id]) =>
      id.startsWith('MonitoringModelInvocation'),
    );
    expect(keys).toHaveLength(1);
    expect(keys[0]?.[1].Properties.EnableKeyRotation).toBe(true);
    expect(keys[0]?.[1].Properties.KeyPolicy.Statement).toContainEqual(
      expect.objectContaining({
        Principal: { Service: 'bedrock.amazonaws.com' },
        Action: 'kms:GenerateDataKey',
        Condition: {
          StringEquals: { 'aws:SourceAccount': '123456789012' },
          ArnLike: { 'aws:SourceArn': expect.anything() },
        },
      }),
    );
  });

  it("has no ingestion log or alarm for a reused Knowledge Base (not this stack's to log)", () => {
    template.resourceCountIs('AWS::Logs::DeliverySource', 0);
    template.resourceCountIs('AWS::Logs::MetricFilter', 0);
  });

  it('puts the CloudFront alarm in a us-east-1 stack of its own, with its own topic and the same e-mail', () => {
    const edge = synthesized.edgeMonitoringTemplate;
    if (!edge) throw new Error('no edge-monitoring stack outside us-east-1');
    const [, alarm] = onlyResource(edge, 'AWS::CloudWatch::Alarm');
    expect(alarm.Properties).toMatchObject({
      Namespace: 'AWS/CloudFront',
      MetricName: '5xxErrorRate',
      Threshold: 5,
      EvaluationPeriods: 2,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    const dimensions = alarm.Properties.Dimensions as { Name: string; Value: unknown }[];
    expect(dimensions.find((dimension) => dimension.Name === 'Region')?.Value).toBe('Global');
    // The distribution id arrives from the main stack (eu-west-1) through a cross-region output.
    expect(dimensions.find((dimension) => dimension.Name === 'DistributionId')?.Value).toEqual({
      'Fn::GetStackOutput': {
        StackName: 'ServiceDeskAssistant',
        Region: 'eu-west-1',
        OutputName: expect.stringMatching(/^PublishOutputRefWebDistribution/),
      },
    });
    const [topicId] = onlyResource(edge, 'AWS::SNS::Topic');
    expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    expect(alarm.Properties.OKActions).toEqual([{ Ref: topicId }]);
    edge.hasResourceProperties('AWS::SNS::Subscription', {
      Protocol: 'email',
      Endpoint: 'ops@example.com',
    });
    expect(synthesized.nagFindings).toEqual([]);
  });

  it('has no CloudFront alarm (its metrics live only in us-east-1) but keeps the others', () => {
    const metricNames = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map(
      (resource) => resource.Properties.MetricName,
    );
    expect(metricNames).toHaveLength(10);
    expect(metricNames).not.toContain('5xxErrorRate');
    const [, dashboard] = onlyResource(template, 'AWS::CloudWatch::Dashboard');
    expect(renderArn(dashboard.Properties.DashboardBody)).toContain('"region":"us-east-1"');
  });
});
