import { createHash } from 'node:crypto';
import { RemovalPolicy, aws_s3vectors as s3vectors } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { type EmbeddingModelId, embeddingDimension, embeddingModelDistances } from '../config.js';
import type { KnowledgeBaseVectorStore } from './knowledge-base.js';

/**
 * Metadata keys Bedrock writes to each vector that are stored but never filtered on: the chunk
 * text and Bedrock's own metadata blob (both exceed the 2 KB of filterable metadata a vector may
 * have; GenU PR #1471 marks the same two) and the ticket's subject (free text of any length, never
 * a filter). Every other key — `restricted`, `desk`, `issue_id`, `category`, `status`,
 * `created_at` — stays filterable: the retriever filters on the first three (functions/adapters/
 * bedrock/knowledge-base-retriever.ts, ADR 0029). At most 10 keys (S3 Vectors limit).
 */
export const nonFilterableMetadataKeys = [
  'AMAZON_BEDROCK_TEXT',
  'AMAZON_BEDROCK_METADATA',
  'subject',
] as const;

/** The IAM actions Bedrock needs on the index to ingest (write, delete) and retrieve (query). */
export const s3VectorsKnowledgeBaseActions = [
  's3vectors:GetIndex',
  's3vectors:PutVectors',
  's3vectors:GetVectors',
  's3vectors:DeleteVectors',
  's3vectors:QueryVectors',
] as const;

export interface S3VectorStoreProps {
  /** Lower-case prefix (3–20 characters) of the Knowledge Base name. */
  readonly namePrefix: string;
  readonly embeddingModelId: EmbeddingModelId;
}

/**
 * The S3 Vectors store of the Knowledge Base: a vector bucket and one index whose dimension and
 * distance come from the embedding model. No idle cost (storage and requests only), semantic
 * search only (docs/deploy.md says what that loses). Every property of an index is create-only,
 * so its name is a hash of all of them: a new model or key list is a new index and a new
 * Knowledge Base, re-ingested; the bucket stays.
 */
export class S3VectorStore extends Construct implements KnowledgeBaseVectorStore {
  readonly vectorBucket: s3vectors.CfnVectorBucket;
  readonly index: s3vectors.CfnIndex;
  readonly indexName: string;
  readonly knowledgeBaseName: string;
  readonly searchType = 'SEMANTIC' as const;
  readonly storageConfiguration;
  readonly serviceRoleStatements: iam.PolicyStatement[];
  readonly knowledgeBaseDependencies;

  constructor(scope: Construct, id: string, props: S3VectorStoreProps) {
    super(scope, id);
    const definition = {
      dataType: 'float32',
      dimension: embeddingDimension(props.embeddingModelId),
      distanceMetric: embeddingModelDistances[props.embeddingModelId],
      metadataConfiguration: { nonFilterableMetadataKeys: [...nonFilterableMetadataKeys] },
    };
    const hash = createHash('sha256')
      .update(JSON.stringify([props.embeddingModelId, definition]))
      .digest('hex')
      .slice(0, 8);
    this.indexName = `tickets-${hash}`;
    this.knowledgeBaseName = `${props.namePrefix}-s3vectors-${hash}`;

    // No name: CloudFormation generates one, unique per account and region.
    this.vectorBucket = new s3vectors.CfnVectorBucket(this, 'Bucket', {});
    // Derived from the documents (re-ingested on a new stack), like the OpenSearch collection.
    this.vectorBucket.applyRemovalPolicy(RemovalPolicy.DESTROY);
    this.index = new s3vectors.CfnIndex(this, 'Index', {
      vectorBucketArn: this.vectorBucket.attrVectorBucketArn,
      indexName: this.indexName,
      ...definition,
    });
    this.index.applyRemovalPolicy(RemovalPolicy.DESTROY);

    this.storageConfiguration = {
      type: 'S3_VECTORS',
      s3VectorsConfiguration: {
        vectorBucketArn: this.vectorBucket.attrVectorBucketArn,
        indexArn: this.index.attrIndexArn,
      },
    };
    this.serviceRoleStatements = [
      new iam.PolicyStatement({
        sid: 'UseVectorIndex',
        actions: [...s3VectorsKnowledgeBaseActions],
        resources: [this.index.attrIndexArn],
      }),
    ];
    this.knowledgeBaseDependencies = [this.index];
  }
}
