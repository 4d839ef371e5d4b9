import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  conversationsTable,
  insightsTable,
  turnsTable,
} from '../../functions/adapters/dynamodb/table-definitions.js';
import { embeddingDimension } from '../../lib/config.js';
import { hashTicketDocuments } from '../../lib/constructs/hash-ticket-documents.js';
import {
  JAPANESE_TEXT_ANALYZER,
  vectorIndexDefinition,
} from '../../lib/constructs/opensearch-vector-store.js';
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
    it.each([conversationsTable, turnsTable, insightsTable])(
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

    it('creates the vector index with the embedding model dimension, Bedrock fields and kuromoji', () => {
      // Created by the stack's own custom resource, not AWS::OpenSearchServerless::Index (ADR 0014).
      template.resourceCountIs('AWS::OpenSearchServerless::Index', 0);
      const [, index] = onlyResource(template, 'Custom::OpenSearchVectorIndex');
      const definition = JSON.parse(index.Properties.IndexDefinition);
      expect(definition).toEqual(vectorIndexDefinition('amazon.titan-embed-text-v2:0'));
      expect(definition.settings).toEqual({
        index: {
          knn: true,
          'knn.algo_param.ef_search': 512,
          // Japanese words, not single characters, for the keyword half of HYBRID search.
          analysis: {
            analyzer: {
              ja_text: {
                type: 'custom',
                tokenizer: 'kuromoji_tokenizer',
                filter: [
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
        },
      });
      const properties = definition.mappings.properties;
      expect(properties['bedrock-knowledge-base-default-vector']).toEqual({
        type: 'knn_vector',
        dimension: embeddingDimension('amazon.titan-embed-text-v2:0'),
        method: {
          name: 'hnsw',
          engine: 'faiss',
          space_type: 'l2',
          parameters: { ef_construction: 512, m: 16 },
        },
      });
      expect(properties['bedrock-knowledge-base-default-vector'].dimension).toBe(1024);
      expect(properties.AMAZON_BEDROCK_TEXT_CHUNK).toEqual({
        type: 'text',
        index: true,
        analyzer: JAPANESE_TEXT_ANALYZER.name,
      });
      expect(properties.AMAZON_BEDROCK_METADATA).toEqual({ type: 'text', index: false });
      expect(index.Properties).toMatchObject({
        CollectionEndpoint: {
          'Fn::GetAtt': [
            logicalIdOf(template, 'AWS::OpenSearchServerless::Collection'),
            'CollectionEndpoint',
          ],
        },
        IndexName: expect.stringMatching(/^tickets-[0-9a-f]{8}$/),
        VectorField: 'bedrock-knowledge-base-default-vector',
      });
      // Created after the collection, its access policy and the function's IAM policy; deleted
      // before them, so its Delete still reaches the index.
      const handlerPolicy = Object.keys(template.findResources('AWS::IAM::Policy')).find((id) =>
        id.startsWith('KnowledgeBaseOpenSearchIndexHandlerPolicy'),
      );
      expect([...index.DependsOn].sort()).toEqual(
        [
          logicalIdOf(template, 'AWS::OpenSearchServerless::Collection'),
          logicalIdOf(template, 'AWS::OpenSearchServerless::AccessPolicy'),
          handlerPolicy,
        ].sort(),
      );
    });

    it('backs the index with a bundled function that may call this collection only', () => {
      const [, index] = onlyResource(template, 'Custom::OpenSearchVectorIndex');
      const [functionId, handler] = Object.entries(
        template.findResources('AWS::Lambda::Function'),
      ).find(([id]) => id.startsWith('KnowledgeBaseOpenSearchIndexHandlerFunction')) as [
        string,
        CfnJson,
      ];
      expect(index.Properties.ServiceToken).toEqual({ 'Fn::GetAtt': [functionId, 'Arn'] });
      // A real, bundled file (functions/opensearch-index/handler.ts), not inline code.
      expect(handler.Properties.Code.ZipFile).toBeUndefined();
      expect(handler.Properties).toMatchObject({ Runtime: 'nodejs22.x', Timeout: 600 });
      template.hasResourceProperties('AWS::IAM::Policy', {
        PolicyDocument: {
          Statement: [
            {
              Sid: 'CallVectorCollection',
              Action: 'aoss:APIAccessAll',
              Effect: 'Allow',
              Resource: {
                'Fn::GetAtt': [
                  logicalIdOf(template, 'AWS::OpenSearchServerless::Collection'),
                  'Arn',
                ],
              },
            },
          ],
        },
        Roles: [{ Ref: Match.stringLikeRegexp('^KnowledgeBaseOpenSearchIndexHandlerRole') }],
      });
    });

    it('creates the Knowledge Base after the index answers, the access policy and the role policy', () => {
      // No fixed wait: the index resource returns only once the index answers.
      template.resourceCountIs('Custom::VectorIndexQueryable', 0);
      const [, knowledgeBase] = onlyResource(template, 'AWS::Bedrock::KnowledgeBase');
      const rolePolicy = Object.keys(template.findResources('AWS::IAM::Policy')).find((id) =>
        id.startsWith('KnowledgeBaseServiceRolePolicy'),
      );
      expect([...knowledgeBase.DependsOn].sort()).toEqual(
        [
          logicalIdOf(template, 'Custom::OpenSearchVectorIndex'),
          logicalIdOf(template, 'AWS::OpenSearchServerless::AccessPolicy'),
          rolePolicy,
        ].sort(),
      );
      expect(knowledgeBase.Properties.StorageConfiguration).toEqual({
        Type: 'OPENSEARCH_SERVERLESS',
        OpensearchServerlessConfiguration: {
          CollectionArn: {
            'Fn::GetAtt': [logicalIdOf(template, 'AWS::OpenSearchServerless::Collection'), 'Arn'],
          },
          VectorIndexName: onlyResource(template, 'Custom::OpenSearchVectorIndex')[1].Properties
            .IndexName,
          FieldMapping: {
            VectorField: 'bedrock-knowledge-base-default-vector',
            TextField: 'AMAZON_BEDROCK_TEXT_CHUNK',
            MetadataField: 'AMAZON_BEDROCK_METADATA',
          },
        },
      });
    });

    it('names the KB role and the index function role in the data access policy, no bootstrap role', () => {
      const [, policy] = onlyResource(template, 'AWS::OpenSearchServerless::AccessPolicy');
      const documents = JSON.parse(
        renderArn(policy.Properties.Policy).replace(/<([A-Za-z]+)\.Arn>/g, 'ROLE:$1'),
      ) as { Principal: string[]; Rules: { Permission: string[] }[] }[];
      expect(documents.map((document) => document.Principal)).toEqual([
        ['ROLE:KnowledgeBaseServiceRole'],
        ['ROLE:KnowledgeBaseOpenSearchIndexHandlerRole'],
      ]);
      expect(JSON.stringify(documents)).not.toContain('cfn-exec-role');
      // The index function manages the index and reads only to probe it; never writes documents.
      const managerPermissions = documents[1]?.Rules.flatMap((rule) => rule.Permission);
      expect(managerPermissions).toEqual(
        expect.arrayContaining(['aoss:CreateIndex', 'aoss:DeleteIndex', 'aoss:ReadDocument']),
      );
      expect(managerPermissions).not.toContain('aoss:WriteDocument');
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
        (ingestion.DependsOn as string[]).some((id) =>
          id.startsWith('KnowledgeBaseDocumentsUploadTickets'),
        ),
      ).toBe(true);
    });
  });
});
