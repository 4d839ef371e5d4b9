import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { webAppSource } from '../../lib/constructs/web-app-source.js';
import { WebHosting } from '../../lib/constructs/web-hosting.js';
import { featureFlags, fixturePaths } from './synthesize.js';

/** The names of the account-global CloudFront resources of a WebHosting in `region`. */
function cloudFrontNames(stackName: string, region: string): Record<string, string> {
  const app = new App({ context: featureFlags });
  const stack = new Stack(app, stackName, { env: { account: '123456789012', region } });
  const fn = new lambda.Function(stack, 'Fn', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => {}'),
  });
  new WebHosting(stack, 'Web', {
    webApp: webAppSource({ prebuilt: fixturePaths.webApp.prebuilt }),
    functionUrl: fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.AWS_IAM }),
    auth: {
      kind: 'cognito',
      authority: 'a',
      clientId: 'c',
      domainUrl: 'https://d',
      userPoolId: 'p',
    },
  });
  const template = Template.fromStack(stack);
  const names: Record<string, string> = {};
  for (const [id, resource] of Object.entries(
    template.findResources('AWS::CloudFront::OriginAccessControl'),
  )) {
    names[id] = resource.Properties.OriginAccessControlConfig.Name;
  }
  for (const [id, resource] of Object.entries(
    template.findResources('AWS::CloudFront::ResponseHeadersPolicy'),
  )) {
    names[id] = resource.Properties.ResponseHeadersPolicyConfig.Name;
  }
  for (const [id, resource] of Object.entries(
    template.findResources('AWS::CloudFront::Function'),
  )) {
    names[id] = resource.Properties.Name;
  }
  return names;
}

// CloudFront origin access controls, response headers policies and functions are named per
// account, not per region: the same stack in two regions must not reuse a name.
describe('CloudFront resource names', () => {
  it('differ between two regions of one account for the same stack name', () => {
    const virginia = cloudFrontNames('ServiceDeskAssistant', 'us-east-1');
    const tokyo = cloudFrontNames('ServiceDeskAssistant', 'ap-northeast-1');
    // Two origin access controls (web, API), the security headers policy, the SPA function.
    expect(Object.keys(virginia)).toHaveLength(4);
    expect(Object.keys(tokyo)).toEqual(Object.keys(virginia));
    for (const id of Object.keys(virginia)) expect(tokyo[id], id).not.toBe(virginia[id]);
    expect(Object.values(virginia)).toEqual(
      expect.arrayContaining([
        'ServiceDeskAssistant-us-east-1-web-oac',
        'ServiceDeskAssistant-us-east-1-api-oac',
        'ServiceDeskAssistant-us-east-1-security-headers',
      ]),
    );
  });

  it('fit CloudFront limits (64 characters) and stay distinct for long stack names', () => {
    const longName = `ServiceDesk-${'x'.repeat(52)}`;
    const first = cloudFrontNames(longName, 'ap-southeast-2');
    const second = cloudFrontNames(`${longName.slice(0, -1)}y`, 'ap-southeast-2');
    for (const name of [...Object.values(first), ...Object.values(second)]) {
      expect(name.length, name).toBeLessThanOrEqual(64);
    }
    expect(Object.values(first).filter((name) => Object.values(second).includes(name))).toEqual([]);
  });
});
