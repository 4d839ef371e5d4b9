import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type { Construct } from 'constructs';

/** CloudFront publishes its metrics only in us-east-1, with `Region` = `Global`. */
export const cloudFrontMetricsRegion = 'us-east-1';

export interface AlarmTopicProps {
  /** Subscribe this address to the topic (it must confirm the subscription). @default none */
  readonly alarmEmail?: string;
}

export interface AlarmOptions {
  readonly metric: cloudwatch.IMetric;
  readonly threshold: number;
  readonly evaluationPeriods: number;
  readonly datapointsToAlarm?: number;
  readonly description: string;
}

/**
 * Where the stack's alarms go and how they are made: an encrypted SNS topic CloudWatch may
 * publish to (with an optional e-mail subscription), and alarms that notify it on ALARM and OK.
 * One per region that has alarms: an alarm can only notify a topic of its own region.
 *
 * Not a construct of its own: the key and topic are created directly in `scope` (ids `TopicKey`,
 * `AlarmTopic`), so moving them here kept their logical ids — a new topic would need every
 * e-mail subscription confirmed again.
 */
export class AlarmTopic {
  readonly topic: sns.Topic;
  private readonly action: actions.SnsAction;

  constructor(scope: Construct, props: AlarmTopicProps = {}) {
    const stack = Stack.of(scope);
    // CloudWatch alarms cannot publish to a topic under the AWS-managed `aws/sns` key (its key
    // policy cannot be changed to let cloudwatch.amazonaws.com use it), so the topic has its own
    // key that CloudWatch may use. SNS2 wants encryption at rest; SNS3 wants TLS only.
    // https://docs.aws.amazon.com/sns/latest/dg/sns-key-management.html#compatibility-with-aws-services
    const alarmsOfThisAccount = {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: {
        'aws:SourceArn': stack.formatArn({
          service: 'cloudwatch',
          resource: 'alarm',
          resourceName: '*',
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      },
    };
    const key = new kms.Key(scope, 'TopicKey', {
      description: 'Encrypts the service-desk alarm topic',
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: alarmsOfThisAccount,
      }),
    );
    this.topic = new sns.Topic(scope, 'AlarmTopic', {
      displayName: 'Service-desk assistant alarms',
      masterKey: key,
      enforceSSL: true,
    });
    // The topic policy that enforceSSL creates replaces SNS's default policy: allow the alarms.
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: alarmsOfThisAccount,
      }),
    );
    if (props.alarmEmail) {
      this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    }
    this.action = new actions.SnsAction(this.topic);
  }

  /** An alarm at or above `threshold` that notifies this topic when it fires and when it clears. */
  addAlarm(scope: Construct, id: string, options: AlarmOptions): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(scope, id, {
      metric: options.metric,
      threshold: options.threshold,
      evaluationPeriods: options.evaluationPeriods,
      datapointsToAlarm: options.datapointsToAlarm,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // Every alarm here watches failures or latency of requests: no data means no requests
      // (the embedded metrics and Lambda Errors are published only when something happens),
      // which is healthy, not unknown.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    return alarm;
  }
}

/** The distribution's 5xx rate, read in us-east-1 (dashboards of other regions may read it too). */
export function cloudFront5xxErrorRate(distributionId: string): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: 'AWS/CloudFront',
    metricName: '5xxErrorRate',
    dimensionsMap: { DistributionId: distributionId, Region: 'Global' },
    statistic: 'Average',
    period: Duration.minutes(5),
    region: cloudFrontMetricsRegion,
  });
}

/**
 * 5% of viewer requests failing with 5xx for 10 minutes (two 5-minute periods): the origin (the
 * function URL or the bucket) is failing, not one unlucky request. Only in us-east-1, where the
 * metric is.
 */
export function cloudFront5xxAlarmOptions(distributionId: string): AlarmOptions {
  return {
    metric: cloudFront5xxErrorRate(distributionId),
    threshold: 5,
    evaluationPeriods: 2,
    description: 'CloudFront 5xxErrorRate >= 5% for 10 minutes.',
  };
}
