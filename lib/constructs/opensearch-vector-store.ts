import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  CustomResource,
  Duration,
  aws_opensearchserverless as oss,
  RemovalPolicy,
} from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { VectorIndexProperties } from '../../functions/opensearch-index/vector-index-resource.js';
import { type EmbeddingModelId, embeddingDimension } from '../config.js';
import { createAppFunction } from './app-function.js';
import type { KnowledgeBaseVectorStore } from './knowledge-base.js';
import { vectorCollectionAccessRules } from './vector-collection-access-rules.js';

/** Field names Bedrock writes and reads in the vector index (its defaults for OSS). */
export const knowledgeBaseFields = {
  vector: 'bedrock-knowledge-base-default-vector',
  text: 'AMAZON_BEDROCK_TEXT_CHUNK',
  metadata: 'AMAZON_BEDROCK_METADATA',
} as const;

/**
 * The analyzer of the vector index's text field, for the keyword half of HYBRID search: the
 * kuromoji tokenizer (OpenSearch's Japanese morphological analyzer, available on OpenSearch
 * Serverless) with base forms (できません → できる), no particles or auxiliaries (part of speech,
 * stop words), katakana long-vowel stemming (プリンター = プリンタ), full-width/half-width folding
 * (ＶＰＮ = VPN) and lower case, so English tickets are searched as before. Part of the index
 * definition the stack's custom resource creates (ADR 0014), as GenU creates its kuromoji index.
 */
export const JAPANESE_TEXT_ANALYZER = {
  name: 'ja_text',
  definition: {
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
} as const;

/**
 * The vector index as `PUT /<index>` takes it (OpenSearch's own field names): k-NN on, the
 * faiss HNSW vector field of the embedding model's dimension, the text field indexed with the
 * Japanese analyzer (HYBRID search), the metadata field stored only.
 */
export function vectorIndexDefinition(embeddingModelId: EmbeddingModelId) {
  return {
    settings: {
      index: {
        // Without knn true the mapping's `method` is rejected.
        knn: true,
        'knn.algo_param.ef_search': 512,
        analysis: {
          analyzer: { [JAPANESE_TEXT_ANALYZER.name]: JAPANESE_TEXT_ANALYZER.definition },
        },
      },
    },
    mappings: {
      properties: {
        [knowledgeBaseFields.vector]: {
          type: 'knn_vector',
          dimension: embeddingDimension(embeddingModelId),
          method: {
            name: 'hnsw',
            engine: 'faiss',
            space_type: 'l2',
            parameters: { ef_construction: 512, m: 16 },
          },
        },
        // Indexed text enables HYBRID (keyword + vector) search, which helps ticket numbers
        // and product names that embeddings blur. The default analyzer cuts Japanese into single
        // characters, so the keyword half would match any ticket sharing a kanji; kuromoji
        // splits it into words (see JAPANESE_TEXT_ANALYZER).
        [knowledgeBaseFields.text]: {
          type: 'text',
          index: true,
          analyzer: JAPANESE_TEXT_ANALYZER.name,
        },
        [knowledgeBaseFields.metadata]: { type: 'text', index: false },
      },
    },
  };
}

/**
 * The physical names of the collection, vector index and Knowledge Base, derived from the
 * settings that cannot change in place, so that changing one creates new resources under new
 * names instead of failing:
 *
 * - `standbyReplicas` is create-only on the collection, whose name is fixed → the name says
 *   whether it has standby replicas;
 * - nothing of an index's definition (dimension, method, analyzer, mappings) can change on an
 *   existing index → the index name is a hash of the embedding model and the *whole* definition,
 *   settings and analysis included, and a new name is a new index (vectors of two models must
 *   not share one index either);
 * - a Knowledge Base's storage and embedding settings are create-only and its name must be
 *   unique → its name joins the collection name and the index hash.
 *
 * The security and access policies name both possible collections, so they do not change
 * when the collection does.
 */
export function knowledgeBaseNames(
  namePrefix: string,
  settings: {
    readonly standbyReplicas: boolean;
    readonly embeddingModelId: string;
    readonly indexDefinition: unknown;
  },
) {
  const collectionNames = [`${namePrefix}-tickets`, `${namePrefix}-tickets-sr`] as const;
  const collection = collectionNames[settings.standbyReplicas ? 1 : 0];
  const indexHash = createHash('sha256')
    .update(JSON.stringify([settings.embeddingModelId, settings.indexDefinition]))
    .digest('hex')
    .slice(0, 8);
  return {
    collection,
    /** Every name the collection may have; the policies cover them all. */
    collectionNames,
    index: `tickets-${indexHash}`,
    knowledgeBase: `${collection}-${indexHash}`,
  };
}

export interface OpenSearchVectorStoreProps {
  /** Lower-case prefix (3–20 characters) of the collection, its policies and the Knowledge Base. */
  readonly namePrefix: string;
  readonly embeddingModelId: EmbeddingModelId;
  /** The Knowledge Base's service role: the data access policy lets it read and write vectors. */
  readonly knowledgeBaseRole: iam.IRole;
  /** @default false */
  readonly standbyReplicas?: boolean;
  /** Roles that may manage the index (operators; a configured deployment role). @default none */
  readonly adminRoleArns?: readonly string[];
  /** The index custom resource's handler. @default functions/opensearch-index/handler.ts */
  readonly indexHandlerEntry?: string;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
  /** @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * The OpenSearch Serverless vector store of the Knowledge Base: encryption, network and data
 * access policies → VECTORSEARCH collection → the vector index, created by the stack's own
 * `Custom::OpenSearchVectorIndex` (signed `aoss` calls, retried while the data access policy
 * propagates, answered only once the index answers; ADR 0014) instead of
 * `AWS::OpenSearchServerless::Index`, whose analysis settings no deployment was found to use.
 */
export class OpenSearchVectorStore extends Construct implements KnowledgeBaseVectorStore {
  readonly collection: oss.CfnCollection;
  /** The custom resource that creates the index; the Knowledge Base is created after it. */
  readonly index: CustomResource;
  /** `tickets-<hash of the embedding model and the index definition>`. */
  readonly indexName: string;
  readonly knowledgeBaseName: string;
  readonly searchType = 'HYBRID' as const;
  readonly storageConfiguration;
  readonly serviceRoleStatements: iam.PolicyStatement[];
  readonly knowledgeBaseDependencies;

  constructor(scope: Construct, id: string, props: OpenSearchVectorStoreProps) {
    super(scope, id);
    const definition = vectorIndexDefinition(props.embeddingModelId);
    const names = knowledgeBaseNames(props.namePrefix, {
      standbyReplicas: props.standbyReplicas ?? false,
      embeddingModelId: props.embeddingModelId,
      indexDefinition: definition,
    });
    this.indexName = names.index;
    this.knowledgeBaseName = names.knowledgeBase;
    const collectionResources = names.collectionNames.map((name) => `collection/${name}`);

    // The function behind the index resource; its role is a principal of the data access policy.
    const indexFunction = createAppFunction(new Construct(this, 'IndexHandler'), {
      entry:
        props.indexHandlerEntry ??
        fileURLToPath(new URL('../../functions/opensearch-index/handler.ts', import.meta.url)),
      description: 'Creates, probes and deletes the Knowledge Base vector index (aoss data plane)',
      memorySize: 256,
      // Long enough for the data access policy to apply (up to a minute) and the probe; the
      // handler answers CloudFormation before this, with the reason, when it gives up.
      timeout: Duration.minutes(10),
      environment: {},
      logRetention: props.logRetention,
      logRemovalPolicy: props.logRemovalPolicy,
    });

    const encryptionPolicy = new oss.CfnSecurityPolicy(this, 'EncryptionPolicy', {
      name: `${props.namePrefix}-enc`,
      type: 'encryption',
      policy: JSON.stringify({
        Rules: [{ ResourceType: 'collection', Resource: collectionResources }],
        AWSOwnedKey: true,
      }),
    });
    // Public endpoint: the index function and Bedrock both call it from outside any VPC. Every
    // request is still SigV4-authenticated and checked against the data access policy.
    const networkPolicy = new oss.CfnSecurityPolicy(this, 'NetworkPolicy', {
      name: `${props.namePrefix}-net`,
      type: 'network',
      policy: JSON.stringify([
        {
          Rules: [{ ResourceType: 'collection', Resource: collectionResources }],
          AllowFromPublic: true,
        },
      ]),
    });
    const dataAccessPolicy = new oss.CfnAccessPolicy(this, 'DataAccessPolicy', {
      name: `${props.namePrefix}-data`,
      type: 'data',
      policy: JSON.stringify(
        vectorCollectionAccessRules(names.collectionNames, {
          knowledgeBaseRole: props.knowledgeBaseRole.roleArn,
          indexManager: indexFunction.role.roleArn,
          administrators: props.adminRoleArns ?? [],
        }),
      ),
    });

    this.collection = new oss.CfnCollection(this, 'Collection', {
      name: names.collection,
      type: 'VECTORSEARCH',
      standbyReplicas: props.standbyReplicas ? 'ENABLED' : 'DISABLED',
      description: 'Ticket vectors for the service-desk Knowledge Base',
    });
    // An encryption policy must exist before its collection. The data access policy comes first
    // too: rules take up to a minute to apply, and the collection takes minutes to become
    // active, so the policy is usually in force by the time the index is created (and the
    // index function retries 403 when it is not).
    this.collection.addResourceDependency(encryptionPolicy);
    this.collection.addResourceDependency(networkPolicy);
    this.collection.addResourceDependency(dataAccessPolicy);

    const indexFunctionPolicy = new iam.Policy(this, 'IndexHandlerPolicy', {
      roles: [indexFunction.role],
      statements: [
        new iam.PolicyStatement({
          sid: 'CallVectorCollection',
          actions: ['aoss:APIAccessAll'],
          resources: [this.collection.attrArn],
        }),
      ],
    });

    const properties: VectorIndexProperties = {
      CollectionEndpoint: this.collection.attrCollectionEndpoint,
      IndexName: names.index,
      IndexDefinition: JSON.stringify(definition),
      VectorField: knowledgeBaseFields.vector,
    };
    this.index = new CustomResource(this, 'VectorIndex', {
      serviceToken: indexFunction.function.functionArn,
      resourceType: 'Custom::OpenSearchVectorIndex',
      properties: { ...properties },
      // The index holds only vectors derived from the documents; a new one is re-ingested.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Deleted before them on stack deletion, so its Delete can still reach the index.
    this.index.node.addDependency(this.collection, dataAccessPolicy, indexFunctionPolicy);

    this.storageConfiguration = {
      type: 'OPENSEARCH_SERVERLESS',
      opensearchServerlessConfiguration: {
        collectionArn: this.collection.attrArn,
        vectorIndexName: names.index,
        fieldMapping: {
          vectorField: knowledgeBaseFields.vector,
          textField: knowledgeBaseFields.text,
          metadataField: knowledgeBaseFields.metadata,
        },
      },
    };
    this.serviceRoleStatements = [
      new iam.PolicyStatement({
        sid: 'UseVectorCollection',
        actions: ['aoss:APIAccessAll'],
        resources: [this.collection.attrArn],
      }),
    ];
    // Bedrock validates the store when the Knowledge Base is created: the index must exist and
    // answer ("no such index" otherwise: aws-samples/amazon-bedrock-knowledgebase-slackbot#7,
    // aws/modern-data-architecture-accelerator#33) — the index resource returns only then —
    // and the role must already be allowed to use it.
    this.knowledgeBaseDependencies = [this.index, dataAccessPolicy];
  }
}
