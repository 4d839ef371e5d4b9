import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  conversationsTable,
  turnsTable,
} from '../../functions/adapters/dynamodb/table-definitions.js';
import { embeddingDimension } from '../../lib/config.js';
import { hashTicketDocuments } from '../../lib/constructs/hash-ticket-documents.js';
import { indexPropagationSeconds } from '../../lib/constructs/knowledge-base.js';
import {
  type CfnJson,
  fixturePaths,
  renderArn,
  type SynthesizedServiceDesk,
  synthesizeServiceDesk,
} from './synthesize.js';
import { logicalIdOf, onlyResource, sdkCallResource } from './template-queries.js';

// One concern of the default stack per file; each file synthesizes it once.
describe('ServiceDeskStack (default config): tables and Knowledge Base', () => {
  let synthesized: SynthesizedServiceDesk;
  let template: Template;

  beforeAll(() => {
    synthesized = synthesizeServiceDesk({});
    template = synthesized.template;
  });

  describe('DynamoDB', () => {
    it.each([conversationsTable, turnsTable])(
      'builds $baseName from the shared definition',
      (definition) => {
        const key = (name: string, type: string) => ({ AttributeName: name, KeyType: type });
        const tables = template.findResources('AWS::DynamoDB::Table', {
          Properties: {
            KeySchema: [
              key(definition.partitionKey.name, 'HASH'),
              key(definition.sortKey.name, 'RANGE'),
            ],
          },
        });
        const [, table] = Object.entries(tables)[0] as [string, CfnJson];
        expect(Object.keys(tables)).toHaveLength(1);
        expect(table.DeletionPolicy).toBe('Retain');
        expect(table.Properties).toMatchObject({
          BillingMode: 'PAY_PER_REQUEST',
          PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
          SSESpecification: { SSEEnabled: true },
          TimeToLiveSpecification: { AttributeName: definition.timeToLiveAttribute, Enabled: true },
          DeletionProtectionEnabled: true,
        });
        expect(table.Properties.LocalSecondaryIndexes ?? []).toEqual(
          definition.localSecondaryIndexes.map((index) => ({
            IndexName: index.indexName,
            KeySchema: [key(index.partitionKey.name, 'HASH'), key(index.sortKey.name, 'RANGE')],
            Projection: { ProjectionType: 'ALL' },
          })),
        );
        expect(table.Properties.GlobalSecondaryIndexes).toBeUndefined();
        const attributes = [
          definition.partitionKey,
          definition.sortKey,
          ...definition.localSecondaryIndexes.map((index) => index.sortKey),
        ];
        expect(table.Properties.AttributeDefinitions).toEqual(
          attributes.map((attribute) => ({
            AttributeName: attribute.name,
            AttributeType: attribute.type,
          })),
        );
      },
    );
  });

  describe('Knowledge Base', () => {
    it('creates a vector collection without standby replicas after its policies', () => {
      const [, collection] = onlyResource(template, 'AWS::OpenSearchServerless::Collection');
      expect(collection.Properties).toMatchObject({
        Type: 'VECTORSEARCH',
        StandbyReplicas: 'DISABLED',
      });
      const policies = Object.keys(
        template.findResources('AWS::OpenSearchServerless::SecurityPolicy'),
      );
      expect(policies).toHaveLength(2);
      expect([...collection.DependsOn].sort()).toEqual(
        [...policies, logicalIdOf(template, 'AWS::OpenSearchServerless::AccessPolicy')].sort(),
      );
      template.hasResourceProperties('AWS::OpenSearchServerless::SecurityPolicy', {
        Type: 'encryption',
        Policy: Match.serializedJson({
          // Both names the collection can have (with and without standby replicas).
          Rules: [
            {
              ResourceType: 'collection',
              Resource: [
                `collection/${collection.Properties.Name}`,
                `collection/${collection.Properties.Name}-sr`,
              ],
            },
          ],
          AWSOwnedKey: true,
        }),
      });
    });

    it('creates the vector index with the embedding model dimension and Bedrock fields', () => {
      const [, index] = onlyResource(template, 'AWS::OpenSearchServerless::Index');
      expect(index.Properties.Settings).toEqual({
        Index: { Knn: true, KnnAlgoParamEfSearch: 512 },
        // Japanese words, not single characters, for the keyword half of HYBRID search.
        Analysis: {
          Analyzer: {
            ja_text: {
              Type: 'custom',
              Tokenizer: 'kuromoji_tokenizer',
              Filter: [
                'kuromoji_baseform',
                'kuromoji_part_of_speech',
                'cjk_width',
                'ja_stop',
                'kuromoji_stemmer',
                'lowercase',
              ],
            },
          },
        },
      });
      const properties = index.Properties.Mappings.Properties;
      expect(properties['bedrock-knowledge-base-default-vector']).toEqual({
        Type: 'knn_vector',
        Dimension: embeddingDimension('amazon.titan-embed-text-v2:0'),
        Method: {
          Name: 'hnsw',
          Engine: 'faiss',
          SpaceType: 'l2',
          Parameters: { EfConstruction: 512, M: 16 },
        },
      });
      expect(properties['bedrock-knowledge-base-default-vector'].Dimension).toBe(1024);
      expect(properties.AMAZON_BEDROCK_TEXT_CHUNK).toEqual({
        Type: 'text',
        Index: true,
        Analyzer: 'ja_text',
      });
      expect(properties.AMAZON_BEDROCK_METADATA).toEqual({ Type: 'text', Index: false });
      expect(index.DependsOn).toEqual(
        expect.arrayContaining([
          logicalIdOf(template, 'AWS::OpenSearchServerless::Collection'),
          logicalIdOf(template, 'AWS::OpenSearchServerless::AccessPolicy'),
        ]),
      );
    });

    it('creates the Knowledge Base only after its index is queryable (a wait after the index)', () => {
      const [waitId, wait] = onlyResource(template, 'Custom::VectorIndexQueryable');
      const [indexId, index] = onlyResource(template, 'AWS::OpenSearchServerless::Index');
      expect(wait.Properties).toMatchObject({
        IndexName: index.Properties.IndexName,
        Seconds: indexPropagationSeconds,
      });
      expect(indexPropagationSeconds).toBeGreaterThanOrEqual(60);
      expect(wait.DependsOn).toEqual([indexId]);
      const [, knowledgeBase] = onlyResource(template, 'AWS::Bedrock::KnowledgeBase');
      expect(knowledgeBase.DependsOn).toContain(waitId);
      // The waiting function answers CloudFormation itself and may do nothing else.
      const [, handler] = Object.entries(template.findResources('AWS::Lambda::Function')).find(
        ([id]) => id.startsWith('KnowledgeBaseIndexWait'),
      ) as [string, CfnJson];
      expect(handler.Properties.Code.ZipFile).toContain('event.ResponseURL');
      expect(wait.Properties.ServiceToken).toEqual({
        'Fn::GetAtt': [
          Object.keys(template.findResources('AWS::Lambda::Function')).find((id) =>
            id.startsWith('KnowledgeBaseIndexWait'),
          ),
          'Arn',
        ],
      });
    });

    it('creates the Knowledge Base after the index, the access policy and the role policy', () => {
      const [, knowledgeBase] = onlyResource(template, 'AWS::Bedrock::KnowledgeBase');
      const rolePolicy = Object.keys(template.findResources('AWS::IAM::Policy')).find((id) =>
        id.startsWith('KnowledgeBaseServiceRolePolicy'),
      );
      expect([...knowledgeBase.DependsOn].sort()).toEqual(
        [
          logicalIdOf(template, 'AWS::OpenSearchServerless::Index'),
          logicalIdOf(template, 'AWS::OpenSearchServerless::AccessPolicy'),
          rolePolicy,
          logicalIdOf(template, 'Custom::VectorIndexQueryable'),
        ].sort(),
      );
      expect(
        knowledgeBase.Properties.StorageConfiguration.OpensearchServerlessConfiguration,
      ).toMatchObject({
        VectorIndexName: onlyResource(template, 'AWS::OpenSearchServerless::Index')[1].Properties
          .IndexName,
        FieldMapping: {
          VectorField: 'bedrock-knowledge-base-default-vector',
          TextField: 'AMAZON_BEDROCK_TEXT_CHUNK',
          MetadataField: 'AMAZON_BEDROCK_METADATA',
        },
      });
    });

    it('names the KB role and the CloudFormation execution role in the data access policy', () => {
      const [, policy] = onlyResource(template, 'AWS::OpenSearchServerless::AccessPolicy');
      const documents = JSON.parse(
        renderArn(policy.Properties.Policy).replace(/<([A-Za-z]+)\.Arn>/g, 'ROLE:$1'),
      ) as { Principal: string[]; Rules: { Permission: string[] }[] }[];
      expect(documents.map((document) => document.Principal)).toEqual([
        ['ROLE:KnowledgeBaseServiceRole'],
        [
          'arn:<AWS::Partition>:iam::123456789012:role/cdk-hnb659fds-cfn-exec-role-123456789012-us-east-1',
        ],
      ]);
      // The deployer manages the index but never reads documents.
      const deployerPermissions = documents[1]?.Rules.flatMap((rule) => rule.Permission);
      expect(deployerPermissions).toContain('aoss:CreateIndex');
      expect(deployerPermissions).not.toContain('aoss:ReadDocument');
    });

    it('starts an ingestion job whose physical id is the hash of the ticket documents', () => {
      const ingestion = sdkCallResource(template, 'startIngestionJob');
      const create = JSON.parse(renderArn(ingestion.Properties.Create));
      expect(create).toMatchObject({
        service: 'bedrock-agent',
        action: 'startIngestionJob',
        physicalResourceId: { id: `tickets-${hashTicketDocuments(fixturePaths.ticketsPath)}` },
        // A job already running does not fail the deploy, nor its rollback.
        ignoreErrorCodesMatching: 'ConflictException',
      });
      // Nothing is called on Delete, so removing the resource cannot fail.
      expect(ingestion.Properties.Delete).toBeUndefined();
      expect(ingestion.Properties.Update).toEqual(ingestion.Properties.Create);
      expect(ingestion.DependsOn).toEqual(
        expect.arrayContaining([logicalIdOf(template, 'AWS::Bedrock::DataSource')]),
      );
      expect(
        (ingestion.DependsOn as string[]).some((id) => id.startsWith('KnowledgeBaseUploadTickets')),
      ).toBe(true);
    });
  });
});
