import type { App } from 'aws-cdk-lib';
import type { ServiceDeskConfig } from './config.js';
import { EdgeMonitoringStack } from './edge-monitoring-stack.js';
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
        requestsPerFiveMinutes: config.wafRateLimit,
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
  return { main, waf, edgeMonitoring };
}
