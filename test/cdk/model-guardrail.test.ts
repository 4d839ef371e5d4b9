import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseServiceDeskConfig } from '../../lib/config.js';
import { renderArn, synthesizeServiceDesk } from './synthesize.js';

/** The API role's statements granting `bedrock:ApplyGuardrail`, resources rendered. */
function applyGuardrailResources(template: Synthesized['template']) {
  return Object.values(template.findResources('AWS::IAM::Policy')).flatMap((policy) =>
    (policy.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[])
      .filter((statement) => JSON.stringify(statement.Action).includes('bedrock:ApplyGuardrail'))
      .map((statement) => renderArn(statement.Resource)),
  );
}

type Synthesized = ReturnType<typeof synthesizeServiceDesk>;

describe('ServiceDeskStack: Bedrock Guardrail (guardrail setting)', () => {
  // One synthesis per setting, before the cases (synthesis takes longer than a test may).
  const synthesized: Record<'none' | 'create' | 'existing', Synthesized> = {} as never;
  beforeAll(() => {
    synthesized.none = synthesizeServiceDesk({});
    synthesized.create = synthesizeServiceDesk({ guardrail: 'create' });
    synthesized.existing = synthesizeServiceDesk({
      guardrail: 'gr12abcd34',
      guardrailVersion: '2',
    });
  }, 180_000);

  it('has none by default: no guardrail, no guardrail environment, no ApplyGuardrail grant', () => {
    const { template } = synthesized.none;
    template.resourceCountIs('AWS::Bedrock::Guardrail', 0);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ GUARDRAIL_IDENTIFIER: Match.absent() }),
      },
    });
    expect(applyGuardrailResources(template)).toEqual([]);
  });

  it("with 'create', makes a prompt-attack guardrail, publishes a version and lets the API apply it", () => {
    const { template, nagFindings } = synthesized.create;
    template.resourceCountIs('AWS::Bedrock::Guardrail', 1);
    template.hasResourceProperties('AWS::Bedrock::Guardrail', {
      ContentPolicyConfig: {
        FiltersConfig: [{ Type: 'PROMPT_ATTACK', InputStrength: 'HIGH', OutputStrength: 'NONE' }],
      },
      SensitiveInformationPolicyConfig: Match.absent(),
    });
    template.resourceCountIs('AWS::Bedrock::GuardrailVersion', 1);
    const guardrailId = Object.keys(template.findResources('AWS::Bedrock::Guardrail'))[0] ?? '';
    const versionId = Object.keys(template.findResources('AWS::Bedrock::GuardrailVersion'))[0];
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          GUARDRAIL_IDENTIFIER: { 'Fn::GetAtt': [guardrailId, 'GuardrailId'] },
          GUARDRAIL_VERSION: { 'Fn::GetAtt': [versionId, 'Version'] },
        }),
      },
    });
    expect(applyGuardrailResources(template)).toEqual([
      `<${guardrailId.replace(/[0-9A-F]{8}$/, '')}.GuardrailArn>`,
    ]);
    expect(nagFindings).toEqual([]);
  });

  it('uses an existing guardrail by id at the given version, granting ApplyGuardrail on its ARN only', () => {
    const { template } = synthesized.existing;
    template.resourceCountIs('AWS::Bedrock::Guardrail', 0);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({ GUARDRAIL_IDENTIFIER: 'gr12abcd34', GUARDRAIL_VERSION: '2' }),
      },
    });
    expect(applyGuardrailResources(template)).toEqual([
      'arn:aws:bedrock:us-east-1:123456789012:guardrail/gr12abcd34',
    ]);
  });

  it('refuses an existing guardrail without a version, a version with create, and a malformed id', () => {
    expect(() => parseServiceDeskConfig({ guardrail: 'gr12abcd34' })).toThrow(/guardrailVersion/);
    expect(() => parseServiceDeskConfig({ guardrail: 'create', guardrailVersion: '1' })).toThrow(
      /guardrailVersion/,
    );
    expect(() => parseServiceDeskConfig({ guardrail: 'My Guardrail' })).toThrow(/guardrail/);
    expect(() => parseServiceDeskConfig({ guardrailVersion: 'latest' })).toThrow(
      /guardrailVersion/,
    );
  });
});
