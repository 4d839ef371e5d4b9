import { Stack, aws_wafv2 as wafv2 } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import type { ServiceDeskConfig } from '../config.js';

export interface RateLimitWebAclProps {
  /** Requests one client IP may make in any 5-minute window before it is blocked. */
  readonly requestsPerFiveMinutes: number;
  /**
   * CIDR ranges (IPv4 or IPv6) that may reach the site at all; every other address is blocked.
   * @default any address
   */
  readonly allowedIpRanges?: readonly string[];
  /**
   * Keep samples of matched requests (headers included) for the WAF console. The samples live
   * in us-east-1 with the web ACL, so `dataResidency: jp` turns them off.
   * @default true
   */
  readonly sampledRequests?: boolean;
}

/**
 * AWS managed rule groups the web ACL runs, in order, with the rules that only count: staff paste
 * error messages, mail text and HTML snippets into inquiries, and a published ticket's body can
 * pass 8 KB, so the body-inspecting rules of the common set would block real work.
 * (Rule names: AWS WAF developer guide, "Baseline rule groups".)
 */
const managedRuleGroups = [
  {
    name: 'AWSManagedRulesAmazonIpReputationList',
    countOnly: [] as string[],
  },
  {
    name: 'AWSManagedRulesKnownBadInputsRuleSet',
    countOnly: [] as string[],
  },
  {
    name: 'AWSManagedRulesCommonRuleSet',
    countOnly: ['SizeRestrictions_BODY', 'CrossSiteScripting_BODY', 'GenericLFI_BODY'],
  },
];

/**
 * The CloudFront WAF web ACL: an optional corporate IP allow list, a per-IP rate limit — the
 * brake on scripted abuse of the (token-protected, but Bedrock-billed) chat API, blocked before
 * it reaches the function's concurrency — and AWS managed rules (IP reputation, known bad inputs,
 * the common rule set). CLOUDFRONT-scope web ACLs exist only in us-east-1, so this construct must
 * live in a us-east-1 stack.
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
    const sampledRequestsEnabled = props.sampledRequests ?? true;
    const visibility = (suffix: string) => ({
      cloudWatchMetricsEnabled: true,
      sampledRequestsEnabled,
      metricName: `${metricName}-${suffix}`,
    });
    const rules: wafv2.CfnWebACL.RuleProperty[] = [];
    const allowedIpRanges = props.allowedIpRanges ?? [];
    if (allowedIpRanges.length > 0) {
      rules.push(this.allowListRule(allowedIpRanges, visibility('allow-list')));
    }
    rules.push({
      name: 'RateLimitPerIp',
      priority: rules.length,
      action: { block: {} },
      statement: {
        rateBasedStatement: {
          aggregateKeyType: 'IP',
          limit: props.requestsPerFiveMinutes,
          evaluationWindowSec: 300,
        },
      },
      visibilityConfig: visibility('rate'),
    });
    for (const group of managedRuleGroups) {
      rules.push({
        name: group.name,
        priority: rules.length,
        overrideAction: { none: {} },
        statement: {
          managedRuleGroupStatement: {
            vendorName: 'AWS',
            name: group.name,
            ...(group.countOnly.length > 0
              ? {
                  ruleActionOverrides: group.countOnly.map((name) => ({
                    name,
                    actionToUse: { count: {} },
                  })),
                }
              : {}),
          },
        },
        visibilityConfig: visibility(group.name),
      });
    }
    const webAcl = new wafv2.CfnWebACL(this, 'Resource', {
      scope: 'CLOUDFRONT',
      defaultAction: { allow: {} },
      visibilityConfig: { cloudWatchMetricsEnabled: true, sampledRequestsEnabled, metricName },
      rules,
    });
    this.webAclArn = webAcl.attrArn;
  }

  /** Blocks every address outside the allowed ranges (one IP set per address family). */
  private allowListRule(
    ranges: readonly string[],
    visibilityConfig: wafv2.CfnWebACL.VisibilityConfigProperty,
  ): wafv2.CfnWebACL.RuleProperty {
    const families = [
      { version: 'IPV4', id: 'AllowedIpv4', addresses: ranges.filter((r) => !r.includes(':')) },
      { version: 'IPV6', id: 'AllowedIpv6', addresses: ranges.filter((r) => r.includes(':')) },
    ].filter((family) => family.addresses.length > 0);
    const references = families.map((family) => ({
      ipSetReferenceStatement: {
        arn: new wafv2.CfnIPSet(this, family.id, {
          scope: 'CLOUDFRONT',
          ipAddressVersion: family.version,
          addresses: family.addresses,
          description: 'Networks allowed to reach the service desk - wafAllowedIpRanges',
        }).attrArn,
      },
    }));
    const [only] = references;
    const inAllowList =
      references.length === 1 && only ? only : { orStatement: { statements: references } };
    return {
      name: 'BlockOutsideAllowedNetworks',
      priority: 0,
      action: { block: {} },
      statement: { notStatement: { statement: inAllowList } },
      visibilityConfig,
    };
  }
}

/** The web ACL's settings from the config, wherever the web ACL is created. */
export function webAclSettings(config: ServiceDeskConfig): RateLimitWebAclProps {
  return {
    requestsPerFiveMinutes: config.wafRateLimit,
    allowedIpRanges: config.wafAllowedIpRanges,
    // Samples (request headers included) stay with the web ACL in us-east-1.
    sampledRequests: config.dataResidency !== 'jp',
  };
}
