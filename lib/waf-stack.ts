import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { RateLimitWebAcl, type RateLimitWebAclProps } from './constructs/waf.js';

export interface WafStackProps extends StackProps, RateLimitWebAclProps {}

/**
 * The CloudFront web ACL for a service-desk stack outside us-east-1 (CLOUDFRONT-scope web ACLs
 * exist only there). Its ARN reaches the main stack through a cross-region reference.
 */
export class WafStack extends Stack {
  readonly webAclArn: string;

  constructor(scope: Construct, id: string, props: WafStackProps) {
    super(scope, id, props);
    this.webAclArn = new RateLimitWebAcl(this, 'WebAcl', {
      requestsPerFiveMinutes: props.requestsPerFiveMinutes,
      allowedIpRanges: props.allowedIpRanges,
      sampledRequests: props.sampledRequests,
    }).webAclArn;
  }
}
