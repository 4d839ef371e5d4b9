import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type CfnJson,
  renderArn,
  type SynthesizedServiceDesk,
  synthesizeServiceDesk,
  wildcardResources,
} from './synthesize.js';
import { logRetentionByFunction } from './template-queries.js';

/**
 * The other supported shape: an existing Knowledge Base, a region other than us-east-1 (so the
 * WAF lives in its own us-east-1 stack), a geographic inference profile, e-mail domain
 * enforcement and removalPolicy destroy. Context values are strings, as `cdk -c` passes them.
 */
describe('ServiceDeskStack reusing an existing Knowledge Base in ap-northeast-1 with WAF', () => {
  let synthesized: SynthesizedServiceDesk;
  let template: Template;

  beforeAll(() => {
    synthesized = synthesizeServiceDesk({
      region: 'ap-northeast-1',
      existingKnowledgeBaseId: 'KB12345678',
      modelId: 'apac.anthropic.claude-sonnet-4-5-20250929-v1:0',
      enableWaf: 'true',
      removalPolicy: 'destroy',
      allowedEmailDomains: 'example.com, example.co.jp',
      apiReservedConcurrency: '25',
      logRetentionDays: '7',
    });
    template = synthesized.template;
  });

  it('passes cdk-nag AwsSolutions with every finding acknowledged on its resource', () => {
    expect(synthesized.nagFindings).toEqual([]);
  });

  it('provisions no OpenSearch Serverless, Knowledge Base, data source or ingestion', () => {
    const types = Object.values(
      template.toJSON().Resources as Record<string, { Type: string }>,
    ).map((resource) => resource.Type);
    expect(types.filter((type) => /OpenSearchServerless|Bedrock/.test(type))).toEqual([]);
    expect(JSON.stringify(template.toJSON())).not.toContain('startIngestionJob');
  });

  it('retrieves from the configured Knowledge Base only', () => {
    const retrieveGrants = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) =>
        (policy.Properties.PolicyDocument.Statement as CfnJson[]).filter((statement) =>
          [statement.Action].flat().includes('bedrock:Retrieve'),
        ),
    );
    expect(retrieveGrants).toEqual([
      {
        Action: 'bedrock:Retrieve',
        Effect: 'Allow',
        // A literal partition: @aws-cdk/core:enablePartitionLiterals and a known region.
        Resource: 'arn:aws:bedrock:ap-northeast-1:123456789012:knowledge-base/KB12345678',
        Sid: 'RetrieveTickets',
      },
    ]);
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { KNOWLEDGE_BASE_ID: 'KB12345678' } },
    });
  });

  it('invokes the APAC profile, and its model in other regions only through that profile', () => {
    expect(wildcardResources(template).ApiRoleDefaultPolicy).toEqual([
      // Marketplace subscriptions on first model use (aws:CalledViaLast = Bedrock).
      '*',
      // Attachments' objects, in their own bucket (ADR 0030).
      '<Attachments.Arn>/attachments/*',
      'arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0',
    ]);
    const profileGrants = Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) =>
        (policy.Properties.PolicyDocument.Statement as CfnJson[]).filter(
          (statement) =>
            statement.Action === 'bedrock:InvokeModelWithResponseStream' && !statement.Condition,
        ),
    );
    expect(profileGrants.map((statement) => renderArn(statement.Resource))).toEqual([
      'arn:<AWS::Partition>:bedrock:ap-northeast-1:123456789012:inference-profile/apac.anthropic.claude-sonnet-4-5-20250929-v1:0',
    ]);
  });

  it('creates the web ACL (rate limit among its rules) in us-east-1 and attaches it across regions', () => {
    expect(synthesized.wafTemplate).toBeDefined();
    synthesized.wafTemplate?.hasResourceProperties('AWS::WAFv2::WebACL', {
      Scope: 'CLOUDFRONT',
      DefaultAction: { Allow: {} },
      Rules: Match.arrayWith([
        Match.objectLike({
          Action: { Block: {} },
          Statement: {
            RateBasedStatement: { AggregateKeyType: 'IP', Limit: synthesized.config.wafRateLimit },
          },
        }),
      ]),
    });
    const [distribution] = Object.values(template.findResources('AWS::CloudFront::Distribution'));
    // @aws-cdk/core:defaultCrossStackReferences "weak": CloudFormation's own cross-region
    // Fn::GetStackOutput instead of CDK's exports-reader custom resource.
    expect(distribution?.Properties.DistributionConfig.WebACLId).toEqual({
      'Fn::GetStackOutput': {
        StackName: 'ServiceDeskAssistant-Waf',
        OutputName: expect.stringMatching(/WebAcl/),
        Region: 'us-east-1',
      },
    });
  });

  it('rejects staff accounts outside the allowed e-mail domains with a pre sign-up trigger', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: { ALLOWED_EMAIL_DOMAINS: 'example.com,example.co.jp' } },
    });
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      LambdaConfig: {
        PreSignUp: { 'Fn::GetAtt': [Match.stringLikeRegexp('^AuthEmailDomainCheck'), 'Arn'] },
      },
    });
  });

  it('caps the API function at apiReservedConcurrency', () => {
    const [api] = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { AUTH_MODE: 'cognito' } } },
      }),
    );
    expect(api?.Properties).toBeDefined();
    expect(api?.Properties.ReservedConcurrentExecutions).toBe(25);
  });

  it('keeps the logs of every function, the auto-delete provider included, for logRetentionDays', () => {
    const retention = logRetentionByFunction(template);
    // API, sweeper, e-mail check, AwsCustomResource provider, BucketDeployment, auto-delete.
    expect(Object.keys(retention)).toHaveLength(6);
    expect(new Set(Object.values(retention))).toEqual(new Set([7]));
  });

  it('deletes tables, user pool and buckets on destroy', () => {
    for (const type of ['AWS::DynamoDB::Table', 'AWS::Cognito::UserPool', 'AWS::S3::Bucket']) {
      for (const resource of Object.values(template.findResources(type))) {
        expect(resource.DeletionPolicy, type).toBe('Delete');
      }
    }
    // The web assets, the access logs and the attachments.
    template.resourceCountIs('Custom::S3AutoDeleteObjects', 3);
  });
});
