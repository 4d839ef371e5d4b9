import type { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import { type CfnJson, renderArn } from './synthesize.js';

// CloudFront managed policy ids (documented constants).
export const cachingDisabled = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
export const allViewerExceptHostHeader = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

/** The one resource of a type, with its logical id. */
export function onlyResource(template: Template, type: string): [string, CfnJson] {
  const resources = Object.entries(template.findResources(type));
  expect(resources, type).toHaveLength(1);
  return resources[0] as [string, CfnJson];
}

/** The AwsCustomResource whose create call is `action` (its JSON holds tokens, so render it). */
export function sdkCallResource(template: Template, action: string): CfnJson {
  const matches = Object.values(template.findResources('Custom::AWS')).filter(
    (resource) => JSON.parse(renderArn(resource.Properties.Create)).action === action,
  );
  expect(matches, action).toHaveLength(1);
  return matches[0] as CfnJson;
}

export function logicalIdOf(template: Template, type: string): string {
  return onlyResource(template, type)[0];
}

/**
 * The retention (days) of the log group each Lambda function writes to, by function logical id:
 * its `LoggingConfig.LogGroup`, or else the group named `/aws/lambda/<function>`; `undefined`
 * when it has neither (Lambda then creates a group that never expires).
 */
export function logRetentionByFunction(template: Template): Record<string, number | undefined> {
  const groups = template.findResources('AWS::Logs::LogGroup');
  const result: Record<string, number | undefined> = {};
  for (const [id, fn] of Object.entries(template.findResources('AWS::Lambda::Function'))) {
    const configured = fn.Properties.LoggingConfig?.LogGroup as { Ref?: string } | undefined;
    const named = Object.values(groups).find(
      (group) =>
        renderArn(group.Properties.LogGroupName ?? '') ===
        `/aws/lambda/<${id.replace(/[0-9A-F]{8}$/, '')}>`,
    );
    const group = configured?.Ref ? groups[configured.Ref] : named;
    result[id] = group?.Properties.RetentionInDays;
  }
  return result;
}

/** The logical id of the Cognito client named `clientName` (`web`, `acceptance-tests`). */
export function userPoolClientIdOf(template: Template, clientName: string): string {
  const matches = Object.entries(template.findResources('AWS::Cognito::UserPoolClient')).filter(
    ([, client]) => client.Properties.ClientName === clientName,
  );
  expect(matches, clientName).toHaveLength(1);
  return (matches[0] as [string, CfnJson])[0];
}
