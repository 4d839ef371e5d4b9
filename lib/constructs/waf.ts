import { Stack, aws_wafv2 as wafv2 } from 'aws-cdk-lib';
import { Construct } from 'constructs';

export interface RateLimitWebAclProps {
  /** Requests one client IP may make in any 5-minute window before it is blocked. */
  readonly requestsPerFiveMinutes: number;
}

/**
 * A CloudFront WAF web ACL that blocks client IPs exceeding a request rate: a brake on scripted
 * abuse of the (token-protected, but Bedrock-billed) chat API. CLOUDFRONT-scope web ACLs exist
 * only in us-east-1, so this construct must live in a us-east-1 stack.
 */
export class RateLimitWebAcl extends Construct {
  readonly webAclArn: string;

  constructor(scope: Construct, id: string, props: RateLimitWebAclProps) {
    super(scope, id);
    const region = Stack.of(this).region;
    if (region !== 'us-east-1') {
      throw new Error(`A CloudFront web ACL must be created in us-east-1, not ${region}.`);
    }
    const metricName = `${Stack.of(this).stackName}-waf`.replace(/[^A-Za-z0-9-]/g, '');
    const webAcl = new wafv2.CfnWebACL(this, 'Resource', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: {
        cloudWatchMetricsEnabled: true,
        sampledRequestsEnabled: true,
        metricName,
      },
      rules: [
        {
          name: 'RateLimitPerIp',
          priority: 0,
          action: { block: {} },
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              limit: props.requestsPerFiveMinutes,
              evaluationWindowSec: 300,
            },
          },
          visibilityConfig: {
            cloudWatchMetricsEnabled: true,
            sampledRequestsEnabled: true,
            metricName: `${metricName}-rate`,
          },
        },
      ],
    });
    this.webAclArn = webAcl.attrArn;
  }
}
