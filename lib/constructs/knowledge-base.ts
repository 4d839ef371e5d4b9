import { Aws, aws_bedrock as bedrock, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct, type IDependable } from 'constructs';
import { type EmbeddingModelId, embeddingDimension } from '../config.js';
import { ticketsKeyPrefix } from '../deployed-stack-names.js';
import type { AccessLogBucket } from './access-log-bucket.js';
import { startIngestionOnChange } from './knowledge-base-ingestion.js';
import { KnowledgeBaseIngestionLogs } from './knowledge-base-ingestion-logs.js';
import {
  createKnowledgeBaseServiceRole,
  grantKnowledgeBaseServiceRole,
} from './knowledge-base-service-role.js';
import { OpenSearchVectorStore } from './opensearch-vector-store.js';
import { S3VectorStore } from './s3-vector-store.js';
import { TicketDocuments } from './ticket-documents.js';

/** What the API function needs to know about a Knowledge Base, provisioned or reused. */
export interface KnowledgeBaseReference {
  readonly knowledgeBaseId: string;
  readonly knowledgeBaseArn: string;
}

/**
 * What a vector store gives the Knowledge Base built on it (OpenSearchVectorStore,
 * S3VectorStore): its storage configuration, what the service role needs on it, what the
 * Knowledge Base must be created after, and the names that change whenever it is replaced.
 */
export interface KnowledgeBaseVectorStore {
  readonly storageConfiguration: bedrock.CfnKnowledgeBase.StorageConfigurationProperty;
  readonly serviceRoleStatements: iam.PolicyStatement[];
  readonly knowledgeBaseDependencies: readonly IDependable[];
  /** Unique per account and region, new whenever the store's create-only settings change. */
  readonly knowledgeBaseName: string;
  readonly indexName: string;
  /** The search type the store supports best: HYBRID needs OpenSearch Serverless. */
  readonly searchType: 'HYBRID' | 'SEMANTIC';
}

export interface KnowledgeBaseProps {
  /**
   * Lower-case prefix (3–20 characters, starts with a letter) of the collection, its policies
   * and the Knowledge Base; OpenSearch Serverless names are unique per account and region.
   */
  readonly namePrefix: string;
  readonly embeddingModelId: EmbeddingModelId;
  /** Directory of `<id>.md` + `<id>.md.metadata.json` documents, uploaded on every deploy. */
  readonly ticketsPath: string;
  /**
   * Where the vectors live: OpenSearch Serverless (HYBRID search, an OCU floor) or S3 Vectors
   * (semantic search, no idle cost). ADR 0014, docs/deploy.md.
   * @default 'opensearch-serverless'
   */
  readonly vectorStore?: 'opensearch-serverless' | 's3-vectors';
  /**
   * OpenSearch Serverless only: the index custom resource's handler.
   * @default functions/opensearch-index/handler.ts
   */
  readonly vectorIndexEntry?: string;
  /**
   * OpenSearch Serverless only: standby replicas double the OCU floor (≈$175 → ≈$350/month) for
   * availability-zone redundancy.
   * @default false
   */
  readonly standbyReplicas?: boolean;
  /**
   * The reranker model `Retrieve` may be asked to use: the service role gets `bedrock:Rerank` and
   * `bedrock:InvokeModel` on it (the reranking permissions page lists them for this role).
   * @default no reranking
   */
  readonly rerankingModelId?: string;
  /**
   * OpenSearch Serverless only: roles that may manage the index (operators debugging retrieval).
   * The index itself is created by the stack's own function, so no deployment role is needed.
   * @default none
   */
  readonly adminRoleArns?: readonly string[];
  /**
   * Removal policy of the document bucket. The collection and Knowledge Base are always deleted:
   * they are derived from the documents, and a retained collection keeps billing OCUs.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /** Where the document bucket's server access logs go. @default not logged */
  readonly accessLogs?: AccessLogBucket;
  /**
   * Log group of the provider functions (BucketDeployment, AwsCustomResource); the index
   * function of OpenSearch Serverless has its own.
   * @default CDK-managed `/aws/lambda/<function>` groups
   */
  readonly providerLogGroup?: logs.ILogGroup;
  /** Retention of the ingestion log group. @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
}

/**
 * A Bedrock Knowledge Base over the ticket documents ({@link TicketDocuments}), on the vector
 * store the settings choose ({@link OpenSearchVectorStore} or {@link S3VectorStore}), built from
 * L1 resources in the order the services require:
 *
 * service role → vector store (ready to answer) → Knowledge Base → data source → ingestion job
 * (started on create and whenever the documents change), and the ingestion log with metrics of
 * failed documents and jobs ({@link KnowledgeBaseIngestionLogs}).
 */
export class KnowledgeBase extends Construct implements KnowledgeBaseReference {
  /** A Knowledge Base created elsewhere: the stack only grants access to it. */
  static fromKnowledgeBaseId(scope: Construct, knowledgeBaseId: string): KnowledgeBaseReference {
    return {
      knowledgeBaseId,
      knowledgeBaseArn: Stack.of(scope).formatArn({
        service: 'bedrock',
        resource: 'knowledge-base',
        resourceName: knowledgeBaseId,
      }),
    };
  }

  readonly knowledgeBaseId: string;
  readonly knowledgeBaseArn: string;
  readonly dataSourceId: string;
  readonly documentBucket: s3.Bucket;
  /** The vector store the Knowledge Base is on. */
  readonly vectorStore: OpenSearchVectorStore | S3VectorStore;
  /** `tickets-<hash of everything create-only about the index>`. */
  readonly vectorIndexName: string;
  /** SHA-256 of the ticket files; a new value starts a new ingestion job. */
  readonly documentsHash: string;
  /** The ingestion log and its failure metrics (alarmed by OperationsMonitoring). */
  readonly ingestionLogs: KnowledgeBaseIngestionLogs;

  constructor(scope: Construct, id: string, props: KnowledgeBaseProps) {
    super(scope, id);
    const stack = Stack.of(this);
    if (!/^[a-z][a-z0-9-]{2,19}$/.test(props.namePrefix)) {
      throw new Error(`namePrefix must match ^[a-z][a-z0-9-]{2,19}$, got "${props.namePrefix}"`);
    }
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const documents = new TicketDocuments(this, 'Documents', {
      ticketsPath: props.ticketsPath,
      removalPolicy,
      accessLogs: props.accessLogs,
      providerLogGroup: props.providerLogGroup,
    });
    this.documentBucket = documents.bucket;
    this.documentsHash = documents.documentsHash;
    const dimension = embeddingDimension(props.embeddingModelId);

    const role = createKnowledgeBaseServiceRole(this);

    // --- the vector store -----------------------------------------------------------------
    const store =
      props.vectorStore === 's3-vectors'
        ? new S3VectorStore(this, 'S3Vectors', {
            namePrefix: props.namePrefix,
            embeddingModelId: props.embeddingModelId,
          })
        : new OpenSearchVectorStore(this, 'OpenSearch', {
            namePrefix: props.namePrefix,
            embeddingModelId: props.embeddingModelId,
            knowledgeBaseRole: role,
            standbyReplicas: props.standbyReplicas,
            adminRoleArns: props.adminRoleArns,
            indexHandlerEntry: props.vectorIndexEntry,
            logRetention: props.logRetention,
            logRemovalPolicy: removalPolicy,
          });
    this.vectorStore = store;
    this.vectorIndexName = store.indexName;

    const embeddingModelArn = `arn:${Aws.PARTITION}:bedrock:${stack.region}::foundation-model/${props.embeddingModelId}`;
    const rolePolicy = grantKnowledgeBaseServiceRole(this, role, {
      embeddingModelId: props.embeddingModelId,
      embeddingModelArn,
      vectorStoreStatements: store.serviceRoleStatements,
      documentBucket: this.documentBucket,
      rerankingModelId: props.rerankingModelId,
    });

    const knowledgeBase = new bedrock.CfnKnowledgeBase(this, 'Resource', {
      name: store.knowledgeBaseName,
      description: 'Past service-desk tickets',
      roleArn: role.roleArn,
      knowledgeBaseConfiguration: {
        type: 'VECTOR',
        vectorKnowledgeBaseConfiguration: {
          embeddingModelArn,
          ...(props.embeddingModelId === 'amazon.titan-embed-text-v2:0'
            ? {
                embeddingModelConfiguration: {
                  bedrockEmbeddingModelConfiguration: { dimensions: dimension },
                },
              }
            : {}),
        },
      },
      storageConfiguration: store.storageConfiguration,
    });
    // Bedrock validates the store on create: it must exist (and answer), and the role must
    // already be allowed to use it, or creation fails with "storage configuration provided is
    // invalid".
    knowledgeBase.node.addDependency(...store.knowledgeBaseDependencies, rolePolicy);
    this.knowledgeBaseId = knowledgeBase.attrKnowledgeBaseId;
    this.knowledgeBaseArn = knowledgeBase.attrKnowledgeBaseArn;
    this.ingestionLogs = new KnowledgeBaseIngestionLogs(this, 'IngestionLogs', {
      knowledgeBaseId: this.knowledgeBaseId,
      knowledgeBaseArn: this.knowledgeBaseArn,
      // Named after the Knowledge Base, so a replaced Knowledge Base gets a new delivery source
      // instead of a name clash (≤ 50 characters: the Knowledge Base name is ≤ 40).
      deliveryName: `${store.knowledgeBaseName}-ingestion`,
      logRetention: props.logRetention,
      logRemovalPolicy: removalPolicy,
    });

    const dataSource = new bedrock.CfnDataSource(this, 'TicketsDataSource', {
      knowledgeBaseId: this.knowledgeBaseId,
      name: 'tickets',
      dataSourceConfiguration: {
        type: 'S3',
        s3Configuration: {
          bucketArn: this.documentBucket.bucketArn,
          inclusionPrefixes: [ticketsKeyPrefix],
        },
      },
      // One ticket is one short document: keeping it whole makes each retrieval result one
      // distinct ticket with its own metadata, instead of fragments that compete for the top N.
      vectorIngestionConfiguration: { chunkingConfiguration: { chunkingStrategy: 'NONE' } },
      // DELETE: a data source that goes (replaced, or removed) takes its vectors with it, so no
      // chunk of a ticket outlives the source it came from.
      dataDeletionPolicy: 'DELETE',
    });
    this.dataSourceId = dataSource.attrDataSourceId;

    startIngestionOnChange(this, {
      knowledgeBaseId: this.knowledgeBaseId,
      knowledgeBaseArn: this.knowledgeBaseArn,
      dataSourceId: this.dataSourceId,
      documentsHash: this.documentsHash,
      after: [documents.upload, dataSource],
      providerLogGroup: props.providerLogGroup,
    });
  }
}
