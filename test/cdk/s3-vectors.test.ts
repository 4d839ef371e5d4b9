import { App, DefaultStackSynthesizer, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { bootstrapDifferences, warnOnNonDefaultBootstrap } from '../../lib/bootstrap-check.js';
import { embeddingDimension, parseServiceDeskConfig } from '../../lib/config.js';
import {
  nonFilterableMetadataKeys,
  s3VectorsKnowledgeBaseActions,
} from '../../lib/constructs/s3-vector-store.js';
import {
  type CfnJson,
  type SynthesizedServiceDesk,
  synthesizeServiceDesk,
  wildcardResources,
} from './synthesize.js';
import { logicalIdOf, onlyResource } from './template-queries.js';

const apiEnvironment = (template: Template): Record<string, string> => {
  const [api] = Object.values(
    template.findResources('AWS::Lambda::Function', {
      Properties: { Environment: { Variables: { AUTH_MODE: 'cognito' } } },
    }),
  );
  return api?.Properties.Environment.Variables;
};

describe('ServiceDeskStack with vectorStore s3-vectors', () => {
  let synthesized: SynthesizedServiceDesk;
  let template: Template;

  beforeAll(() => {
    // A string, as `cdk synth -c vectorStore=s3-vectors` passes it.
    synthesized = synthesizeServiceDesk({ vectorStore: 's3-vectors' });
    template = synthesized.template;
  });

  it('provisions no OpenSearch resource at all', () => {
    const types = Object.values(template.toJSON().Resources as Record<string, CfnJson>).map(
      (resource) => resource.Type as string,
    );
    expect(types.filter((type) => /OpenSearch/.test(type))).toEqual([]);
    expect(JSON.stringify(template.toJSON())).not.toContain('aoss:');
  });

  it('creates a vector bucket and an index of the embedding model dimension and distance', () => {
    const [bucketId, bucket] = onlyResource(template, 'AWS::S3Vectors::VectorBucket');
    const [, index] = onlyResource(template, 'AWS::S3Vectors::Index');
    expect(bucket.DeletionPolicy).toBe('Delete');
    expect(index.DeletionPolicy).toBe('Delete');
    expect(index.Properties).toEqual({
      VectorBucketArn: { 'Fn::GetAtt': [bucketId, 'VectorBucketArn'] },
      IndexName: expect.stringMatching(/^tickets-[0-9a-f]{8}$/),
      DataType: 'float32',
      Dimension: embeddingDimension('amazon.titan-embed-text-v2:0'),
      DistanceMetric: 'cosine',
      MetadataConfiguration: {
        NonFilterableMetadataKeys: ['AMAZON_BEDROCK_TEXT', 'AMAZON_BEDROCK_METADATA', 'subject'],
      },
    });
  });

  it('keeps filterable the ticket metadata the retriever filters on', () => {
    // Filterable is the default; only these three are stored without a filter index.
    for (const key of ['restricted', 'issue_id', 'category']) {
      expect(nonFilterableMetadataKeys as readonly string[]).not.toContain(key);
    }
    expect(nonFilterableMetadataKeys.length).toBeLessThanOrEqual(10);
  });

  it('puts the Knowledge Base on S3_VECTORS after the index and its role policy', () => {
    const [, knowledgeBase] = onlyResource(template, 'AWS::Bedrock::KnowledgeBase');
    const indexId = logicalIdOf(template, 'AWS::S3Vectors::Index');
    expect(knowledgeBase.Properties.StorageConfiguration).toEqual({
      Type: 'S3_VECTORS',
      S3VectorsConfiguration: {
        VectorBucketArn: {
          'Fn::GetAtt': [logicalIdOf(template, 'AWS::S3Vectors::VectorBucket'), 'VectorBucketArn'],
        },
        IndexArn: { 'Fn::GetAtt': [indexId, 'IndexArn'] },
      },
    });
    expect(knowledgeBase.Properties.Name).toMatch(/^servicedeskassistant-s3vectors-[0-9a-f]{8}$/);
    const rolePolicy = Object.keys(template.findResources('AWS::IAM::Policy')).find((id) =>
      id.startsWith('KnowledgeBaseServiceRolePolicy'),
    );
    expect([...knowledgeBase.DependsOn].sort()).toEqual([indexId, rolePolicy].sort());
  });

  it('lets the Knowledge Base role read and write vectors of its own index only', () => {
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Sid: 'UseVectorIndex',
            Effect: 'Allow',
            Action: [...s3VectorsKnowledgeBaseActions].sort(),
            Resource: {
              'Fn::GetAtt': [logicalIdOf(template, 'AWS::S3Vectors::Index'), 'IndexArn'],
            },
          },
        ]),
      },
      Roles: [{ Ref: Match.stringLikeRegexp('^KnowledgeBaseServiceRole') }],
    });
    expect(wildcardResources(template).KnowledgeBaseServiceRolePolicy).toEqual([
      '<KnowledgeBaseDocuments.Arn>/tickets/*',
    ]);
  });

  it('searches SEMANTIC (S3 Vectors rejects HYBRID) and tells the function its store', () => {
    expect(apiEnvironment(template)).toMatchObject({
      SEARCH_TYPE: 'SEMANTIC',
      VECTOR_STORE: 's3-vectors',
    });
  });

  it('passes cdk-nag AwsSolutions with every finding acknowledged on its resource', () => {
    expect(synthesized.nagFindings).toEqual([]);
  });
});

describe('vectorStore with a reused Knowledge Base', () => {
  it('searches SEMANTIC on a reused Knowledge Base of another store', () => {
    const { template } = synthesizeServiceDesk({
      existingKnowledgeBaseId: 'KB12345678',
      vectorStore: 'other',
    });
    expect(apiEnvironment(template)).toMatchObject({
      SEARCH_TYPE: 'SEMANTIC',
      VECTOR_STORE: 'other',
    });
  });

  it("refuses 'other' without a reused Knowledge Base, and standby replicas off OpenSearch", () => {
    expect(() => parseServiceDeskConfig({ vectorStore: 'other' })).toThrow(
      /vectorStore: 'other' describes a reused Knowledge Base/,
    );
    expect(() =>
      parseServiceDeskConfig({ vectorStore: 's3-vectors', standbyReplicas: 'true' }),
    ).toThrow(/standbyReplicas is an OpenSearch Serverless setting/);
    expect(() => parseServiceDeskConfig({ vectorStore: 's3vectors' })).toThrow(/vectorStore/);
  });
});

describe('bootstrapDifferences', () => {
  const env = { account: '123456789012', region: 'us-east-1' };

  it('is empty for the default bootstrap', () => {
    expect(bootstrapDifferences(new Stack(new App(), 'Default', { env }))).toEqual([]);
  });

  it('names another qualifier (synthesizer or context) and custom roles', () => {
    const withContext = new App({ context: { '@aws-cdk/core:bootstrapQualifier': 'team1' } });
    expect(bootstrapDifferences(new Stack(withContext, 'Qualified', { env }))).toEqual([
      'bootstrap qualifier team1 (default hnb659fds)',
    ]);
    const custom = new Stack(new App(), 'Custom', {
      env,
      synthesizer: new DefaultStackSynthesizer({
        cloudFormationExecutionRole: 'arn:aws:iam::123456789012:role/pipeline-exec',
      }),
    });
    expect(bootstrapDifferences(custom)).toEqual([
      'CloudFormation execution role arn:aws:iam::123456789012:role/pipeline-exec',
    ]);
  });

  it('makes synthesis warn, naming the difference', () => {
    const app = new App({ context: { '@aws-cdk/core:bootstrapQualifier': 'team1' } });
    const stack = new Stack(app, 'Qualified', { env });
    warnOnNonDefaultBootstrap(stack);
    const messages = app
      .synth()
      .getStackByName('Qualified')
      .messages.map((message) => `${message.level}: ${String(message.entry.data)}`);
    expect(messages).toEqual([
      expect.stringMatching(
        /^warning: Synthesized for a bootstrap other than the default: bootstrap qualifier team1/,
      ),
    ]);
  });
});
