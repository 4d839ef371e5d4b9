import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { stackOutputNames } from '../../lib/deployed-stack-names.js';
import {
  maskAssetHashes,
  renderArn,
  type SynthesizedServiceDesk,
  synthesizeServiceDesk,
  wildcardResources,
} from './synthesize.js';
import { logicalIdOf, logRetentionByFunction, sdkCallResource } from './template-queries.js';

describe('ServiceDeskStack, provisioning its own Knowledge Base (default config)', () => {
  let synthesized: SynthesizedServiceDesk;
  let template: Template;

  beforeAll(() => {
    synthesized = synthesizeServiceDesk({});
    template = synthesized.template;
  });

  it('passes cdk-nag AwsSolutions with every finding acknowledged on its resource', () => {
    expect(synthesized.nagFindings).toEqual([]);
  });

  describe('IAM', () => {
    it('uses wildcard resources only where justified', () => {
      expect(wildcardResources(template)).toEqual({
        // Region wildcard for cross-Region inference, conditioned on the inference profile;
        // Marketplace subscriptions (no ARN), conditioned on aws:CalledViaLast = Bedrock;
        // knowledge capture writes published tickets (numbered at publish time) and reads the
        // category file of each import source uploaded after the deploy; attachments are named
        // by ids made at upload (ADR 0030).
        ApiRoleDefaultPolicy: [
          '*',
          '<Attachments.Arn>/attachments/*',
          '<KnowledgeBaseDocuments.Arn>/ticket-categories/*',
          '<KnowledgeBaseDocuments.Arn>/tickets/published/*',
          'arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0',
        ],
        // ListStreams has no resource-level permission (the stream event source adds it).
        RetentionSweeperRoleDefaultPolicy: ['*'],
        // Bedrock reads every ticket document (object names unknown at synth time).
        KnowledgeBaseServiceRolePolicy: ['<KnowledgeBaseDocuments.Arn>/tickets/*'],
        // CDK's BucketDeployment provider: objects of the asset and target buckets; CloudFront
        // invalidation on * (not configurable in CDK).
        CustomCDKBucketDeployment8693BB64968944B69AAFB0CC9EB8756CServiceRoleDefaultPolicy: [
          '*',
          '<KnowledgeBaseDocuments.Arn>/*',
          '<WebAssets.Arn>/*',
          // A literal partition: @aws-cdk/core:enablePartitionLiterals and a known region.
          'arn:aws:s3:::cdk-hnb659fds-assets-123456789012-us-east-1/*',
        ],
      });
    });

    it('lets the ingestion custom resource start jobs on this Knowledge Base only', () => {
      template.hasResourceProperties('AWS::IAM::Policy', {
        PolicyDocument: {
          Statement: [
            {
              Action: 'bedrock:StartIngestionJob',
              Effect: 'Allow',
              Resource: {
                'Fn::GetAtt': [
                  logicalIdOf(template, 'AWS::Bedrock::KnowledgeBase'),
                  'KnowledgeBaseArn',
                ],
              },
            },
          ],
        },
      });
    });
  });

  describe('Cognito', () => {
    it('has admin-created users only, a strong password policy and optional MFA', () => {
      template.hasResourceProperties('AWS::Cognito::UserPool', {
        AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
        MfaConfiguration: 'OPTIONAL',
        Policies: {
          PasswordPolicy: {
            MinimumLength: 12,
            RequireLowercase: true,
            RequireUppercase: true,
            RequireNumbers: true,
            RequireSymbols: true,
          },
        },
      });
    });

    it('has a public SPA client: code flow, no secret, SRP only (the integration test has its own client)', () => {
      template.hasResourceProperties('AWS::Cognito::UserPoolClient', {
        GenerateSecret: false,
        AllowedOAuthFlows: ['code'],
        AllowedOAuthFlowsUserPoolClient: true,
        AllowedOAuthScopes: ['openid', 'email', 'profile'],
        ExplicitAuthFlows: ['ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH'],
      });
    });

    it('points the client callback and logout URLs at the distribution', () => {
      const update = sdkCallResource(template, 'updateUserPoolClient');
      const parameters = JSON.parse(renderArn(update.Properties.Create)).parameters;
      const siteUrl = `https://<${logicalIdOf(template, 'AWS::CloudFront::Distribution').replace(/[0-9A-F]{8}$/, '')}.DomainName>/`;
      expect(parameters.CallbackURLs).toEqual([siteUrl]);
      expect(parameters.LogoutURLs).toEqual([siteUrl]);
      expect(parameters.AllowedOAuthFlows).toEqual(['code']);
    });

    it('has a service-desk-leads group, named by a stack output, that the API function checks', () => {
      const groups = template.findResources('AWS::Cognito::UserPoolGroup', {
        Properties: { GroupName: 'service-desk-leads' },
      });
      const [groupId, group] = Object.entries(groups)[0] ?? [];
      expect(Object.keys(groups)).toHaveLength(1);
      expect(group?.Properties).toEqual({
        UserPoolId: { Ref: logicalIdOf(template, 'AWS::Cognito::UserPool') },
        GroupName: 'service-desk-leads',
        Description: expect.stringMatching(/insights/),
      });
      expect(template.findOutputs(stackOutputNames.serviceDeskLeadGroup)).toEqual({
        [stackOutputNames.serviceDeskLeadGroup]: { Value: { Ref: groupId } },
      });
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: { AUTH_MODE: 'cognito', SERVICE_DESK_LEAD_GROUP: 'service-desk-leads' },
        },
      });
    });
  });

  it('keeps the logs of every function, CDK providers included, for logRetentionDays', () => {
    const retention = logRetentionByFunction(template);
    // The API, the retention sweeper, the knowledge sync catch-up, the vector-index wait, and
    // CDK's BucketDeployment and AwsCustomResource providers.
    expect(Object.keys(retention)).toHaveLength(6);
    expect(new Set(Object.values(retention))).toEqual(new Set([30]));
  });

  it('outputs what operators and the integration test need', () => {
    const outputs = Object.keys(template.findOutputs('*'));
    expect(outputs.sort()).toEqual(Object.values(stackOutputNames).sort());
  });

  it("outputs the Function URL itself, for the acceptance suite's unsigned-call check", () => {
    const output = template.findOutputs(stackOutputNames.functionUrl)[stackOutputNames.functionUrl];
    expect(output?.Value).toEqual({
      'Fn::GetAtt': [logicalIdOf(template, 'AWS::Lambda::Url'), 'FunctionUrl'],
    });
  });

  it('matches the snapshot (asset hashes masked)', () => {
    expect(maskAssetHashes(template)).toMatchSnapshot();
  });
});
