import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { dataResidencyRules, parseServiceDeskConfig } from '../../lib/config.js';
import {
  type CfnJson,
  renderArn,
  type SynthesizedServiceDesk,
  synthesizeServiceDesk,
} from './synthesize.js';
import { onlyResource, sdkCallResource } from './template-queries.js';

/**
 * What a Japanese enterprise's security review asks of the synthesized stack (issue 50,
 * docs/deploy.md "Security review"): data kept in Japan, a throttle at the edge, access logs,
 * customer-managed keys, and the smaller items. Three syntheses: the default app (shared with
 * the other files), one with every Japan-review setting on (OpenSearch Serverless, a created key),
 * and one with an existing key on S3 Vectors and the edge protections off (their acknowledgements
 * in place).
 */

const japan: readonly string[] = dataResidencyRules.jp.regions;
const certificateArn =
  'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789';

/** Every statement of every IAM policy and role (inline and managed) in a template. */
function iamStatements(template: Template): CfnJson[] {
  const documents = [
    ...Object.values(template.findResources('AWS::IAM::Policy')).map(
      (policy) => policy.Properties.PolicyDocument,
    ),
    ...Object.values(template.findResources('AWS::IAM::ManagedPolicy')).map(
      (policy) => policy.Properties.PolicyDocument,
    ),
    ...Object.values(template.findResources('AWS::IAM::Role')).flatMap((role) =>
      (role.Properties.Policies ?? []).map((policy: CfnJson) => policy.PolicyDocument),
    ),
  ];
  return documents.flatMap((document) => document.Statement as CfnJson[]);
}

/** The Bedrock ARNs any IAM statement names, rendered. */
function bedrockArns(template: Template): string[] {
  return iamStatements(template)
    .flatMap((statement) =>
      Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource],
    )
    .map((resource) => renderArn(resource))
    .filter((arn) => arn.includes(':bedrock:'));
}

/** Every IAM statement that allows a Bedrock action. */
function bedrockStatements(template: Template): CfnJson[] {
  return iamStatements(template).filter((statement) =>
    (Array.isArray(statement.Action) ? statement.Action : [statement.Action]).some(
      (action: string) => action.startsWith('bedrock:'),
    ),
  );
}

/** `[logical id, properties]` of every resource of a type. */
function propertiesOf(template: Template, type: string): [string, CfnJson][] {
  return Object.entries(template.findResources(type)).map(([id, resource]) => [
    id,
    resource.Properties ?? {},
  ]);
}

/**
 * The stack's customer key (`kmsKey`): the one key besides the alarm topic's own, which the
 * topic had before this setting existed.
 */
function customerKey(template: Template): [string, CfnJson] {
  const keys = Object.entries(template.findResources('AWS::KMS::Key')).filter(
    ([id]) => !id.startsWith('MonitoringTopicKey'),
  );
  expect(keys).toHaveLength(1);
  return keys[0] as [string, CfnJson];
}

function apiEnvironment(template: Template): Record<string, string> {
  const api = Object.entries(template.findResources('AWS::Lambda::Function')).find(([id]) =>
    id.startsWith('ApiFunction'),
  );
  if (!api) throw new Error('no API function');
  return api[1].Properties.Environment.Variables;
}

describe('dataResidency: jp', () => {
  it('refuses a region outside Japan, naming the setting', () => {
    expect(() => parseServiceDeskConfig({ dataResidency: 'jp' })).toThrow(
      /dataResidency: dataResidency=jp .*region must be ap-northeast-1 or ap-northeast-3, not us-east-1/,
    );
    expect(() => parseServiceDeskConfig({ dataResidency: 'jp', region: 'eu-west-1' })).toThrow(
      /dataResidency: .*not eu-west-1/,
    );
  });

  it('refuses a profile that routes outside Japan, an embedding model not offered there, and a reranker not in the region', () => {
    const base = { dataResidency: 'jp', region: 'ap-northeast-1' };
    expect(() =>
      parseServiceDeskConfig({
        ...base,
        modelId: 'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
      }),
    ).toThrow(/modelId: dataResidency=jp: global\.anthropic.* routes inquiries outside Japan/);
    expect(() =>
      parseServiceDeskConfig({
        ...base,
        modelId: 'apac.anthropic.claude-sonnet-4-5-20250929-v1:0',
      }),
    ).toThrow(/modelId: .*'apac\.' inference profile/);
    expect(() => parseServiceDeskConfig({ ...base, region: 'ap-northeast-3' })).toThrow(
      /embeddingModelId: dataResidency=jp: amazon\.titan-embed-text-v2:0 is not offered in ap-northeast-3/,
    );
    expect(() =>
      parseServiceDeskConfig({
        dataResidency: 'jp',
        region: 'ap-northeast-3',
        existingKnowledgeBaseId: 'KB12345678',
        rerankingModelId: 'cohere.rerank-v3-5:0',
      }),
    ).toThrow(/rerankingModelId: cohere\.rerank-v3-5:0 is not offered in ap-northeast-3/);
  });

  it('refuses a key or certificate from the wrong region, and half a custom domain, naming the setting', () => {
    const tokyo = { dataResidency: 'jp', region: 'ap-northeast-1' };
    expect(() =>
      parseServiceDeskConfig({
        ...tokyo,
        kmsKey: 'arn:aws:kms:us-east-1:123456789012:key/0a1b2c3d-4e5f-6789-abcd-ef0123456789',
      }),
    ).toThrow(/kmsKey: the key must be in the stack's region \(ap-northeast-1\), not us-east-1/);
    expect(() =>
      parseServiceDeskConfig({
        ...tokyo,
        domainName: 'assist.example.co.jp',
        certificateArn: certificateArn.replace('us-east-1', 'ap-northeast-1'),
      }),
    ).toThrow(/certificateArn: must be an ACM certificate ARN in us-east-1/);
    expect(() => parseServiceDeskConfig({ ...tokyo, domainName: 'assist.example.co.jp' })).toThrow(
      /certificateArn: a custom domain needs both domainName and certificateArn/,
    );
    expect(() => parseServiceDeskConfig({ ...tokyo, certificateArn })).toThrow(
      /domainName: a custom domain needs both/,
    );
  });

  it('uses the jp. profile of the default model unless modelId names another in-Japan model', () => {
    const config = parseServiceDeskConfig({ dataResidency: 'jp', region: 'ap-northeast-1' });
    expect(config.modelId).toBe('jp.anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(
      parseServiceDeskConfig({
        dataResidency: 'jp',
        region: 'ap-northeast-1',
        modelId: 'jp.anthropic.claude-haiku-4-5-20251001-v1:0',
      }).modelId,
    ).toBe('jp.anthropic.claude-haiku-4-5-20251001-v1:0');
    // Without residency the default stays the global profile.
    expect(parseServiceDeskConfig({}).modelId).toMatch(/^global\./);
  });
});

describe('ServiceDeskStack for a Japanese security review (ap-northeast-1, dataResidency jp, kmsKey create, custom domain, allow list, invocation logging)', () => {
  let synthesized: SynthesizedServiceDesk;
  let template: Template;

  beforeAll(() => {
    synthesized = synthesizeServiceDesk({
      region: 'ap-northeast-1',
      dataResidency: 'jp',
      kmsKey: 'create',
      domainName: 'assist.example.co.jp',
      certificateArn,
      wafAllowedIpRanges: '203.0.113.0/24, 2001:db8::/32',
      modelInvocationLogging: 'replace-account-setting',
      rerankingModelId: 'cohere.rerank-v3-5:0',
    });
    template = synthesized.template;
    // Synthesis of a whole app takes minutes on a busy shared machine.
  }, 300_000);

  it('passes cdk-nag with every finding acknowledged', () => {
    expect(synthesized.nagFindings).toEqual([]);
  });

  it('gives the API function the jp. inference profile', () => {
    const environment = apiEnvironment(template);
    expect(Object.values(environment)).toContain('jp.anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(JSON.stringify(environment)).not.toMatch(/global\.|apac\./);
  });

  it('names only Japanese regions in every Bedrock permission (no wildcard or empty region)', () => {
    const arns = bedrockArns(template);
    expect(arns.length).toBeGreaterThan(0);
    for (const arn of arns) {
      const region = /:bedrock:([^:]*):/.exec(arn)?.[1];
      expect(japan, arn).toContain(region);
    }
    // A Bedrock action on `*` (Rerank has no resource type) is held to the region instead.
    const statements = bedrockStatements(template);
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) {
      const resources = [statement.Resource].flat().map((resource) => renderArn(resource));
      for (const resource of resources) {
        if (resource === '*') {
          expect(statement.Condition?.StringEquals?.['aws:RequestedRegion'], statement.Sid).toBe(
            'ap-northeast-1',
          );
          continue;
        }
        // A Bedrock ARN, or a resource of this stack (the Knowledge Base, the guardrail).
        expect(resource, statement.Sid).toMatch(/^arn:<AWS::Partition>:bedrock:|^<[A-Za-z0-9.]+>$/);
        const region = /:bedrock:([^:]*):/.exec(resource)?.[1];
        if (region !== undefined) expect(japan, resource).toContain(region);
      }
    }
    expect(statements.map((statement) => statement.Sid)).toContain('RerankRetrievedChunks');
    expect(arns).toEqual(
      expect.arrayContaining([
        'arn:<AWS::Partition>:bedrock:ap-northeast-1::foundation-model/amazon.titan-embed-text-v2:0',
        'arn:<AWS::Partition>:bedrock:ap-northeast-1::foundation-model/cohere.rerank-v3-5:0',
      ]),
    );
    // The profile's two destinations, named (not `bedrock:*`).
    expect(arns).toEqual(
      expect.arrayContaining([
        'arn:<AWS::Partition>:bedrock:ap-northeast-1::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0',
        'arn:<AWS::Partition>:bedrock:ap-northeast-3::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0',
      ]),
    );
  });

  it('puts one rotating customer key on every table, bucket, vector store and log group (the access-log bucket keeps SSE-S3, which S3 log delivery requires)', () => {
    const [keyId, key] = customerKey(template);
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.DeletionPolicy).toBe('Retain');
    const keyArn = `<${keyId.replace(/[0-9A-F]{8}$/, '')}.Arn>`;

    const tables = propertiesOf(template, 'AWS::DynamoDB::Table');
    expect(tables.length).toBeGreaterThanOrEqual(3);
    for (const [id, table] of tables) {
      expect(table.SSESpecification, id).toMatchObject({ SSEEnabled: true, SSEType: 'KMS' });
      expect(renderArn(table.SSESpecification.KMSMasterKeyId), id).toBe(keyArn);
    }

    const logBucketIds = Object.keys(template.findResources('AWS::S3::Bucket')).filter((id) =>
      id.startsWith('AccessLogs'),
    );
    expect(logBucketIds).toHaveLength(1);
    const buckets = propertiesOf(template, 'AWS::S3::Bucket');
    expect(buckets.length).toBeGreaterThanOrEqual(4);
    for (const [id, bucket] of buckets) {
      const [rule] = bucket.BucketEncryption.ServerSideEncryptionConfiguration;
      if (logBucketIds.includes(id)) {
        expect(rule.ServerSideEncryptionByDefault.SSEAlgorithm, id).toBe('AES256');
        continue;
      }
      expect(rule.ServerSideEncryptionByDefault.SSEAlgorithm, id).toBe('aws:kms');
      expect(renderArn(rule.ServerSideEncryptionByDefault.KMSMasterKeyID), id).toBe(keyArn);
    }

    const logGroups = propertiesOf(template, 'AWS::Logs::LogGroup');
    expect(logGroups.length).toBeGreaterThanOrEqual(4);
    for (const [id, group] of logGroups) expect(renderArn(group.KmsKeyId), id).toBe(keyArn);
    // No function writes to a /aws/lambda/… group Lambda would create unencrypted on first use.
    const logGroupIds = logGroups.map(([id]) => id);
    const functions = propertiesOf(template, 'AWS::Lambda::Function');
    expect(functions.length).toBeGreaterThanOrEqual(4);
    for (const [id, fn] of functions) {
      expect(logGroupIds, id).toContain(fn.LoggingConfig?.LogGroup?.Ref);
    }

    const [, encryption] = propertiesOf(template, 'AWS::OpenSearchServerless::SecurityPolicy').find(
      ([, policy]) => policy.Type === 'encryption',
    ) ?? [undefined, undefined];
    const policy = JSON.parse(renderArn(encryption?.Policy));
    expect(policy).toMatchObject({ AWSOwnedKey: false, KmsARN: keyArn });
  });

  it('lets the services use the key only on behalf of this account, and CloudWatch Logs only for its log groups', () => {
    const [, key] = customerKey(template);
    const statements = key.Properties.KeyPolicy.Statement as CfnJson[];
    const viaServices = statements.find(
      (statement) => statement.Sid === 'UseThroughDataServicesOfThisAccount',
    );
    expect(viaServices?.Condition.StringEquals['kms:CallerAccount']).toBe('123456789012');
    expect(viaServices?.Condition.StringEquals['kms:ViaService']).toEqual([
      'dynamodb.ap-northeast-1.amazonaws.com',
      's3.ap-northeast-1.amazonaws.com',
      's3vectors.ap-northeast-1.amazonaws.com',
      'aoss.ap-northeast-1.amazonaws.com',
    ]);
    const logsStatement = statements.find(
      (statement) => statement.Sid === 'CloudWatchLogsOfThisAccount',
    );
    expect(logsStatement?.Principal).toEqual({ Service: 'logs.ap-northeast-1.amazonaws.com' });
    expect(renderArn(logsStatement?.Condition.ArnLike['kms:EncryptionContext:aws:logs:arn'])).toBe(
      'arn:<AWS::Partition>:logs:ap-northeast-1:123456789012:log-group:*',
    );
  });

  it('serves the custom domain with its us-east-1 certificate and TLSv1.2_2021 at least', () => {
    const [, distribution] = onlyResource(template, 'AWS::CloudFront::Distribution');
    const config = distribution.Properties.DistributionConfig;
    expect(config.Aliases).toEqual(['assist.example.co.jp']);
    expect(config.ViewerCertificate).toEqual({
      AcmCertificateArn: certificateArn,
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
    expect(JSON.stringify(synthesized.webConfig)).toContain('https://assist.example.co.jp/');
  });

  it('blocks addresses outside the allow list, rate-limits and runs the managed rules, keeping no request samples in us-east-1', () => {
    const waf = synthesized.wafTemplate;
    if (!waf) throw new Error('no us-east-1 WAF stack');
    const [, acl] = onlyResource(waf, 'AWS::WAFv2::WebACL');
    const rules = acl.Properties.Rules as CfnJson[];
    expect(rules.map((rule) => rule.Name)).toEqual([
      'BlockOutsideAllowedNetworks',
      'RateLimitPerIp',
      'AWSManagedRulesAmazonIpReputationList',
      'AWSManagedRulesKnownBadInputsRuleSet',
      'AWSManagedRulesCommonRuleSet',
    ]);
    expect(rules[0]?.Statement.NotStatement.Statement.OrStatement.Statements).toHaveLength(2);
    const sets = propertiesOf(waf, 'AWS::WAFv2::IPSet').map(([, set]) => [
      set.IPAddressVersion,
      set.Addresses,
    ]);
    expect(sets).toEqual(
      expect.arrayContaining([
        ['IPV4', ['203.0.113.0/24']],
        ['IPV6', ['2001:db8::/32']],
      ]),
    );
    expect(JSON.stringify(acl.Properties)).not.toContain('"SampledRequestsEnabled":true');
  });

  it('logs model invocations to a retained bucket under the customer key, and leaves the account setting alone on delete', () => {
    const logging = sdkCallResource(template, 'PutModelInvocationLoggingConfiguration');
    expect(logging.Properties.Delete).toBeUndefined();
    const create = JSON.parse(renderArn(logging.Properties.Create));
    expect(create.parameters.loggingConfig).toMatchObject({
      s3Config: { bucketName: expect.stringMatching(/^<MonitoringModelInvocationBucket/) },
      textDataDeliveryEnabled: true,
    });
    expect(create.parameters.loggingConfig.cloudWatchConfig).toBeUndefined();
    const [, bucket] = Object.entries(template.findResources('AWS::S3::Bucket')).find(([id]) =>
      id.startsWith('MonitoringModelInvocationBucket'),
    ) ?? [undefined, undefined];
    expect(bucket?.DeletionPolicy).toBe('Retain');
    expect(bucket?.UpdateReplacePolicy).toBe('Retain');
    const bucketPolicy = Object.values(template.findResources('AWS::S3::BucketPolicy'))
      .flatMap((policy) => policy.Properties.PolicyDocument.Statement as CfnJson[])
      .find((statement) => statement.Sid === 'BedrockWritesInvocationLogs');
    expect(bucketPolicy?.Principal).toEqual({ Service: 'bedrock.amazonaws.com' });
    expect(bucketPolicy?.Condition.StringEquals).toEqual({ 'aws:SourceAccount': '123456789012' });
  });
});

describe('ServiceDeskStack, default config: the review items that are on by default', () => {
  let synthesized: SynthesizedServiceDesk;
  let template: Template;

  beforeAll(() => {
    synthesized = synthesizeServiceDesk({});
    template = synthesized.template;
    // Synthesis of a whole app takes minutes on a busy shared machine.
  }, 300_000);

  it('attaches the WAF web ACL (rate limit and managed rules) to the distribution', () => {
    const [aclId, acl] = onlyResource(template, 'AWS::WAFv2::WebACL');
    expect((acl.Properties.Rules as CfnJson[]).map((rule) => rule.Name)).toEqual([
      'RateLimitPerIp',
      'AWSManagedRulesAmazonIpReputationList',
      'AWSManagedRulesKnownBadInputsRuleSet',
      'AWSManagedRulesCommonRuleSet',
    ]);
    const [, distribution] = onlyResource(template, 'AWS::CloudFront::Distribution');
    expect(distribution.Properties.DistributionConfig.WebACLId).toEqual({
      'Fn::GetAtt': [aclId, 'Arn'],
    });
  });

  it('writes CloudFront standard logs and every bucket’s server access logs to the log bucket, which expires them', () => {
    const [logBucketId, logBucket] = Object.entries(template.findResources('AWS::S3::Bucket')).find(
      ([id]) => id.startsWith('AccessLogs'),
    ) ?? ['', undefined];
    expect(logBucket?.Properties.LifecycleConfiguration.Rules).toEqual([
      expect.objectContaining({ ExpirationInDays: 365, Status: 'Enabled' }),
    ]);
    // CloudFront standard logging writes through an ACL grant; nothing is public all the same.
    expect(logBucket?.Properties.OwnershipControls).toEqual({
      Rules: [{ ObjectOwnership: 'BucketOwnerPreferred' }],
    });
    expect(logBucket?.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    // S3 delivers server access logs only to an SSE-S3 bucket.
    expect(
      logBucket?.Properties.BucketEncryption.ServerSideEncryptionConfiguration[0]
        .ServerSideEncryptionByDefault,
    ).toEqual({ SSEAlgorithm: 'AES256' });
    const [, distribution] = onlyResource(template, 'AWS::CloudFront::Distribution');
    expect(distribution.Properties.DistributionConfig.Logging).toMatchObject({
      Bucket: { 'Fn::GetAtt': [logBucketId, 'RegionalDomainName'] },
      Prefix: 'cloudfront/',
    });
    for (const [id, bucket] of propertiesOf(template, 'AWS::S3::Bucket')) {
      if (id === logBucketId) continue;
      expect(bucket.LoggingConfiguration, id).toMatchObject({
        DestinationBucketName: { Ref: logBucketId },
        LogFilePrefix: expect.stringMatching(/^s3\/[a-z-]+\/$/),
      });
    }
  });

  it('versions the document bucket and expires noncurrent versions', () => {
    const documents = Object.entries(template.findResources('AWS::S3::Bucket')).find(([id]) =>
      id.startsWith('KnowledgeBaseDocuments'),
    );
    expect(documents?.[1].Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    expect(documents?.[1].Properties.LifecycleConfiguration.Rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ NoncurrentVersionExpiration: { NoncurrentDays: 90 } }),
      ]),
    );
  });

  it('deletes a data source’s vectors with it, and lets the Knowledge Base list only under tickets/', () => {
    const [, dataSource] = onlyResource(template, 'AWS::Bedrock::DataSource');
    expect(dataSource.Properties.DataDeletionPolicy).toBe('DELETE');
    const listing = iamStatements(template).find(
      (statement) => statement.Sid === 'ListTicketDocuments',
    );
    expect(listing?.Condition).toEqual({ StringLike: { 's3:prefix': ['tickets/*'] } });
  });

  it('keeps ADMIN_USER_PASSWORD_AUTH off the staff client; the acceptance suite has a client of its own, whose tokens the API also accepts', () => {
    const clients = propertiesOf(template, 'AWS::Cognito::UserPoolClient');
    const web = clients.find(([, client]) => client.ClientName === 'web');
    const acceptance = clients.find(([, client]) => client.ClientName === 'acceptance-tests');
    expect(web?.[1].ExplicitAuthFlows).toEqual(['ALLOW_USER_SRP_AUTH', 'ALLOW_REFRESH_TOKEN_AUTH']);
    expect(acceptance?.[1].ExplicitAuthFlows).toEqual([
      'ALLOW_ADMIN_USER_PASSWORD_AUTH',
      'ALLOW_REFRESH_TOKEN_AUTH',
    ]);
    expect(acceptance?.[1].AllowedOAuthFlowsUserPoolClient).toBe(false);
    const clientIds = renderArn(apiEnvironment(template).COGNITO_CLIENT_ID);
    expect(clientIds).toBe(
      `<${web?.[0].replace(/[0-9A-F]{8}$/, '')}>,<${acceptance?.[0].replace(/[0-9A-F]{8}$/, '')}>`,
    );
    expect(template.toJSON().Outputs.AcceptanceTestClientId.Value).toEqual({
      Ref: acceptance?.[0],
    });
  });

  it('has no customer key and no invocation logging unless asked', () => {
    template.resourceCountIs('AWS::KMS::Key', 1); // the alarm topic's own
    expect(
      Object.values(template.findResources('Custom::AWS')).filter((resource) =>
        renderArn(resource.Properties.Create).includes('ModelInvocationLogging'),
      ),
    ).toEqual([]);
  });
});

describe('ServiceDeskStack on S3 Vectors with an existing key (kmsKey <arn>), WAF and access logs off', () => {
  const importedKeyArn =
    'arn:aws:kms:us-east-1:123456789012:key/0a1b2c3d-4e5f-6789-abcd-ef0123456789';
  let synthesized: SynthesizedServiceDesk;
  let template: Template;

  beforeAll(() => {
    synthesized = synthesizeServiceDesk({
      vectorStore: 's3-vectors',
      kmsKey: importedKeyArn,
      enableWaf: 'false',
      accessLogs: 'false',
    });
    template = synthesized.template;
    // Synthesis of a whole app takes minutes on a busy shared machine.
  }, 300_000);

  it('passes cdk-nag with the acknowledgements of the edge protections it turns off', () => {
    expect(synthesized.nagFindings).toEqual([]);
  });

  it('creates no key of its own and puts the existing one on every table, bucket, log group and the vector bucket', () => {
    template.resourceCountIs('AWS::KMS::Key', 1); // the alarm topic's own
    const tables = propertiesOf(template, 'AWS::DynamoDB::Table');
    expect(tables.length).toBeGreaterThanOrEqual(3);
    for (const [id, table] of tables) {
      expect(table.SSESpecification, id).toEqual({
        SSEEnabled: true,
        SSEType: 'KMS',
        KMSMasterKeyId: importedKeyArn,
      });
    }
    const buckets = propertiesOf(template, 'AWS::S3::Bucket');
    expect(buckets.length).toBeGreaterThanOrEqual(2);
    for (const [id, bucket] of buckets) {
      expect(
        bucket.BucketEncryption.ServerSideEncryptionConfiguration[0].ServerSideEncryptionByDefault,
        id,
      ).toEqual({ SSEAlgorithm: 'aws:kms', KMSMasterKeyID: importedKeyArn });
    }
    const logGroups = propertiesOf(template, 'AWS::Logs::LogGroup');
    expect(logGroups.length).toBeGreaterThanOrEqual(4);
    for (const [id, group] of logGroups) expect(group.KmsKeyId, id).toBe(importedKeyArn);
    const [, vectors] = onlyResource(template, 'AWS::S3Vectors::VectorBucket');
    expect(vectors.Properties.EncryptionConfiguration).toEqual({
      SseType: 'aws:kms',
      KmsKeyArn: importedKeyArn,
    });
  });

  it('has no web ACL, log bucket or distribution logging', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    const [, distribution] = onlyResource(template, 'AWS::CloudFront::Distribution');
    expect(distribution.Properties.DistributionConfig.Logging).toBeUndefined();
    expect(
      Object.keys(template.findResources('AWS::S3::Bucket')).filter((id) =>
        id.startsWith('AccessLogs'),
      ),
    ).toEqual([]);
  });
});
