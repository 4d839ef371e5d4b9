import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import type { EmbeddingModelId } from '../../lib/config.js';
import { KnowledgeBase } from '../../lib/constructs/knowledge-base.js';
import {
  knowledgeBaseNames,
  vectorIndexDefinition,
} from '../../lib/constructs/opensearch-vector-store.js';
import { type CfnJson, featureFlags, fixturePaths } from './synthesize.js';
import { onlyResource } from './template-queries.js';

interface Settings {
  readonly embeddingModelId: EmbeddingModelId;
  readonly standbyReplicas: boolean;
}

/** The physical names and policies of a Knowledge Base synthesized with `settings`. */
function synthesizeNames(settings: Settings) {
  const stack = new Stack(new App({ context: featureFlags }), 'ServiceDeskAssistant', {
    env: { account: '123456789012', region: 'us-east-1' },
  });
  new KnowledgeBase(stack, 'KnowledgeBase', {
    namePrefix: 'servicedeskassistant',
    ticketsPath: fixturePaths.ticketsPath,
    vectorIndexEntry: fixturePaths.vectorIndexEntry,
    ...settings,
  });
  const template = Template.fromStack(stack);
  const property = <T>(type: string, read: (properties: CfnJson) => T): T =>
    read(onlyResource(template, type)[1].Properties);
  const policies = Object.values(
    template.findResources('AWS::OpenSearchServerless::SecurityPolicy'),
  ).map((policy) => policy.Properties);
  return {
    collection: property('AWS::OpenSearchServerless::Collection', (p) => p.Name as string),
    index: property('Custom::OpenSearchVectorIndex', (p) => p.IndexName),
    knowledgeBase: property('AWS::Bedrock::KnowledgeBase', (p) => p.Name),
    marketplaceActions: Object.values(template.findResources('AWS::IAM::Policy')).flatMap(
      (policy) =>
        (policy.Properties.PolicyDocument.Statement as CfnJson[])
          .filter((statement) => statement.Sid === 'SubscribeToModelOnFirstUse')
          .map((statement) => ({ actions: statement.Action, condition: statement.Condition })),
    ),
    knowledgeBaseIndex: property(
      'AWS::Bedrock::KnowledgeBase',
      (p) => p.StorageConfiguration.OpensearchServerlessConfiguration.VectorIndexName,
    ),
    policies: JSON.stringify([
      policies,
      property('AWS::OpenSearchServerless::AccessPolicy', (p) => p),
    ]),
  };
}

const defaults: Settings = {
  embeddingModelId: 'amazon.titan-embed-text-v2:0',
  standbyReplicas: false,
};

// A setting CloudFormation cannot change in place must lead to new physical names, so that a
// redeploy with the new value creates new resources (and deletes the old ones) instead of
// failing on an immutable property or a duplicate name.
describe('Knowledge Base names under create-time-only settings', () => {
  const before = synthesizeNames(defaults);

  it('are stable when nothing changes, and the Knowledge Base uses its own index', () => {
    expect(synthesizeNames(defaults)).toEqual(before);
    expect(before.knowledgeBaseIndex).toBe(before.index);
    expect(before).toMatchObject({
      collection: 'servicedeskassistant-tickets',
      index: expect.stringMatching(/^tickets-[0-9a-f]{8}$/),
      knowledgeBase: expect.stringMatching(/^servicedeskassistant-tickets-[0-9a-f]{8}$/),
    });
  });

  it.each<[string, Partial<Settings>]>([
    ['another dimension (Titan v1, 1536)', { embeddingModelId: 'amazon.titan-embed-text-v1' }],
    ['another model of the same dimension', { embeddingModelId: 'cohere.embed-multilingual-v3' }],
  ])('give a new index and Knowledge Base for %s, in the same collection', (_, change) => {
    const after = synthesizeNames({ ...defaults, ...change });
    expect(after.collection).toBe(before.collection);
    expect(after.index).not.toBe(before.index);
    expect(after.knowledgeBase).not.toBe(before.knowledgeBase);
    expect(after.knowledgeBaseIndex).toBe(after.index);
    expect(after.policies).toBe(before.policies);
  });

  it('let the Knowledge Base role subscribe to a Marketplace embedding model (Cohere) only', () => {
    expect(before.marketplaceActions).toEqual([]);
    expect(
      synthesizeNames({ ...defaults, embeddingModelId: 'cohere.embed-multilingual-v3' })
        .marketplaceActions,
    ).toEqual([
      {
        actions: ['aws-marketplace:Subscribe', 'aws-marketplace:ViewSubscriptions'],
        condition: { StringEquals: { 'aws:CalledViaLast': 'bedrock.amazonaws.com' } },
      },
    ]);
  });

  it('give a new collection and Knowledge Base when standby replicas are turned on', () => {
    const after = synthesizeNames({ ...defaults, standbyReplicas: true });
    expect(after.collection).toBe('servicedeskassistant-tickets-sr');
    expect(after.collection.length).toBeLessThanOrEqual(32);
    expect(after.knowledgeBase).not.toBe(before.knowledgeBase);
    // The policies already cover both collections: they do not change under the collection.
    expect(after.policies).toBe(before.policies);
  });
});

describe('knowledgeBaseNames', () => {
  const names = (definition: unknown) =>
    knowledgeBaseNames('servicedeskassistant', {
      standbyReplicas: false,
      embeddingModelId: 'amazon.titan-embed-text-v2:0',
      indexDefinition: definition,
    });
  const definition = vectorIndexDefinition('amazon.titan-embed-text-v2:0');

  // Nothing of an index's definition changes in place: an analyzer edit under the same name
  // would try to replace an index that exists and fail.
  it('gives a new index and Knowledge Base name when only the analyzer changes', () => {
    const analysis = definition.settings.index.analysis;
    const withoutStemmer = {
      ...definition,
      settings: {
        index: {
          ...definition.settings.index,
          analysis: {
            analyzer: {
              ja_text: {
                ...analysis.analyzer.ja_text,
                filter: analysis.analyzer.ja_text.filter.filter(
                  (name) => name !== 'kuromoji_stemmer',
                ),
              },
            },
          },
        },
      },
    };
    expect(names(withoutStemmer).index).not.toBe(names(definition).index);
    expect(names(withoutStemmer).knowledgeBase).not.toBe(names(definition).knowledgeBase);
    expect(names(structuredClone(definition))).toEqual(names(definition));
  });

  it('gives a new index name when a setting outside the mapping changes', () => {
    const fewerCandidates = {
      ...definition,
      settings: { index: { ...definition.settings.index, 'knn.algo_param.ef_search': 256 } },
    };
    expect(names(fewerCandidates).index).not.toBe(names(definition).index);
  });
});
