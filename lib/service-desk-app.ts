import { type App, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { warnOnNonDefaultBootstrap } from './bootstrap-check.js';
import type { ServiceDeskConfig } from './config.js';
import {
  AlarmTopic,
  cloudFront5xxAlarmOptions,
  cloudFrontMetricsRegion,
} from './constructs/alarm-topic.js';
import { webAclSettings } from './constructs/waf.js';
import { type ServiceDeskPaths, ServiceDeskStack } from './service-desk-stack.js';
import { WafStack } from './waf-stack.js';

export interface ServiceDeskStacks {
  readonly main: ServiceDeskStack;
  /** Present when WAF is on, no web ACL ARN is given, and the main stack is not in us-east-1. */
  readonly waf?: WafStack;
  /** Present when the main stack is not in us-east-1: the CloudFront alarm lives there. */
  readonly edgeMonitoring?: EdgeMonitoringStack;
}

/**
 * Adds the stacks a config describes to `app`: the service-desk stack, and outside us-east-1 the
 * us-east-1 stacks CloudFront needs — the WAF web ACL (when WAF is on) and the CloudFront alarm.
 * bin/app.ts and the CDK tests both build the app through this function.
 */
export function addServiceDeskStacks(
  app: App,
  config: ServiceDeskConfig,
  paths: ServiceDeskPaths,
): ServiceDeskStacks {
  const account = config.account ?? process.env.CDK_DEFAULT_ACCOUNT;
  const outsideUsEast1 = config.region !== 'us-east-1';
  const needsWafStack = config.enableWaf && !config.webAclArn && outsideUsEast1;
  const waf = needsWafStack
    ? new WafStack(app, `${config.stackName}-Waf`, {
        env: { account, region: 'us-east-1' },
        crossRegionReferences: true,
        ...webAclSettings(config),
        description: `CloudFront WAF web ACL for ${config.stackName}`,
      })
    : undefined;
  const main = new ServiceDeskStack(app, config.stackName, {
    stackName: config.stackName,
    env: { account, region: config.region },
    crossRegionReferences: outsideUsEast1,
    description: 'IT service-desk assistant: web app, streaming API, Knowledge Base, Cognito',
    config,
    paths,
    webAclArn: waf?.webAclArn,
  });
  if (waf) main.addStackDependency(waf, 'the distribution attaches its web ACL');
  const edgeMonitoring = outsideUsEast1
    ? new EdgeMonitoringStack(app, `${config.stackName}-EdgeMonitoring`, {
        env: { account, region: 'us-east-1' },
        crossRegionReferences: true,
        distributionId: main.distributionId,
        alarmEmail: config.alarmEmail,
        description: `CloudFront 5xx alarm for ${config.stackName} (CloudFront metrics are in us-east-1)`,
      })
    : undefined;
  edgeMonitoring?.addStackDependency(main, 'it alarms on the distribution');
  for (const stack of [main, waf, edgeMonitoring]) if (stack) warnOnNonDefaultBootstrap(stack);
  return { main, waf, edgeMonitoring };
}

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
