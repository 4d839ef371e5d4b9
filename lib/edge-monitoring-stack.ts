import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import {
  AlarmTopic,
  cloudFront5xxAlarmOptions,
  cloudFrontMetricsRegion,
} from './constructs/alarm-topic.js';

export interface EdgeMonitoringStackProps extends StackProps {
  /** The main stack's distribution (a cross-region reference). */
  readonly distributionId: string;
  /** Subscribed to this stack's alarm topic, as to the main stack's. @default none */
  readonly alarmEmail?: string;
}

/**
 * The CloudFront 5xx alarm for a service-desk stack outside us-east-1. CloudFront publishes its
 * metrics only in us-east-1, and an alarm can only watch a metric — and notify a topic — of its
 * own region, so this stack holds the alarm and a topic of its own (with the same e-mail
 * subscription as the main stack's).
 */
export class EdgeMonitoringStack extends Stack {
  readonly alarmTopic: AlarmTopic;

  constructor(scope: Construct, id: string, props: EdgeMonitoringStackProps) {
    super(scope, id, { ...props, env: { ...props.env, region: cloudFrontMetricsRegion } });
    this.alarmTopic = new AlarmTopic(this, { alarmEmail: props.alarmEmail });
    this.alarmTopic.addAlarm(
      this,
      'CloudFront5xxErrorRate',
      cloudFront5xxAlarmOptions(props.distributionId),
    );
  }
}
