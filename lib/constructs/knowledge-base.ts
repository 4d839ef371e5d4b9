import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  Aws,
  aws_bedrock as bedrock,
  CustomResource,
  DefaultStackSynthesizer,
  Duration,
  Fn,
  aws_opensearchserverless as oss,
  RemovalPolicy,
  Stack,
  Validations,
} from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { rerankStatements } from '../bedrock-model-access.js';
import { type EmbeddingModelId, embeddingDimension } from '../config.js';
import {
  acknowledgeAwsCustomResourceProvider,
  acknowledgeBucketDeploymentProvider,
} from '../nag-acknowledgements.js';
import { hashTicketDocuments } from './hash-ticket-documents.js';
import { KnowledgeBaseIngestionLogs } from './knowledge-base-ingestion-logs.js';
import { vectorCollectionAccessRules } from './vector-collection-access-rules.js';

/** What the API function needs to know about a Knowledge Base, provisioned or reused. */
export interface KnowledgeBaseReference {
  readonly knowledgeBaseId: string;
  readonly knowledgeBaseArn: string;
}

/** Field names Bedrock writes and reads in the vector index (its defaults for OSS). */
export const knowledgeBaseFields = {
  vector: 'bedrock-knowledge-base-default-vector',
  text: 'AMAZON_BEDROCK_TEXT_CHUNK',
  metadata: 'AMAZON_BEDROCK_METADATA',
} as const;

/**
 * The physical names of the collection, vector index and Knowledge Base, derived from the
 * settings CloudFormation cannot change in place, so that changing one creates new resources
 * under new names instead of failing:
 *
 * - `standbyReplicas` is create-only on the collection, whose name is fixed → the name says
 *   whether it has standby replicas;
 * - a `knn_vector` field's dimension (and method) cannot change on an existing index, and
 *   `AWS::OpenSearchServerless::Index` replaces only when its name changes → the index name is a
 *   hash of the embedding model and the whole mapping (vectors of two models must not share one
 *   index either);
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
    readonly mappings: unknown;
  },
) {
  const collectionNames = [`${namePrefix}-tickets`, `${namePrefix}-tickets-sr`] as const;
  const collection = collectionNames[settings.standbyReplicas ? 1 : 0];
  const indexHash = createHash('sha256')
    .update(JSON.stringify([settings.embeddingModelId, settings.mappings]))
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

/**
 * The analyzer of the vector index's text field, for the keyword half of HYBRID search: the
 * kuromoji tokenizer (OpenSearch's Japanese morphological analyzer, available on OpenSearch
 * Serverless) with base forms (できません → できる), no particles or auxiliaries (part of speech,
 * stop words), katakana long-vowel stemming (プリンター = プリンタ), full-width/half-width folding
 * (ＶＰＮ = VPN) and lower case, so English tickets are searched as before. Declared in the
 * index's own settings (`AWS::OpenSearchServerless::Index` Analysis), so the Knowledge Base still
 * manages its fields and no custom resource has to create the index.
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

/** Key prefix of the ticket documents in the document bucket: the data source's inclusion prefix. */
export const ticketsKeyPrefix = 'tickets/';

/**
 * Key prefix of the tickets staff publish from solved inquiries (knowledge capture). Inside
 * {@link ticketsKeyPrefix}, so the data source ingests them as it is; left alone by the
 * deployment's pruning (see `UploadTickets`), so a deploy keeps them.
 */
export const publishedTicketsKeyPrefix = `${ticketsKeyPrefix}published/`;

/** `published/`: the published tickets' folder relative to {@link ticketsKeyPrefix}. */
const publishedTicketsFolder = publishedTicketsKeyPrefix.slice(ticketsKeyPrefix.length);

const RERANK_ON_ANY_RESOURCE =
  ' bedrock:Rerank has no resource type (AWS documents it on *); the model it may invoke is ' +
  'scoped by the separate InvokeModel grant on the reranker ARN.';

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
   * Standby replicas double the OCU floor (≈$175 → ≈$350/month) for availability-zone redundancy.
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
   * The role CloudFormation uses to create the vector index; it must be in the data access policy
   * or `AWS::OpenSearchServerless::Index` fails with "Access denied for operation 'CreateIndex'".
   * @default the bootstrap `cfn-exec-role` of the stack's `DefaultStackSynthesizer`
   */
  readonly deploymentRoleArn?: string;
  /**
   * Extra roles that may read the index and manage it (operators debugging retrieval).
   * @default none
   */
  readonly adminRoleArns?: readonly string[];
  /**
   * Removal policy of the document bucket. The collection and Knowledge Base are always deleted:
   * they are derived from the documents, and a retained collection keeps billing OCUs.
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
  /**
   * Log group of the provider functions (BucketDeployment, AwsCustomResource).
   * @default CDK-managed `/aws/lambda/<function>` groups
   */
  readonly providerLogGroup?: logs.ILogGroup;
  /** Retention of the ingestion log group. @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;
}

/**
 * A Bedrock Knowledge Base over the ticket documents, on an OpenSearch Serverless vector
 * collection, built from L1 resources in the order the services require:
 *
 * encryption + network + data access policies → collection → vector index → Knowledge Base →
 * data source → ingestion job (started on create and whenever the documents change), and the
 * ingestion log with metrics of failed documents and jobs ({@link KnowledgeBaseIngestionLogs}).
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
  readonly collection: oss.CfnCollection;
  readonly index: oss.CfnIndex;
  /** `tickets-<hash of the embedding model and mapping>`: {@link knowledgeBaseNames}. */
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
    const publishedFolder = join(props.ticketsPath, publishedTicketsFolder);
    if (existsSync(publishedFolder)) {
      // The deployment excludes that folder (it is where published tickets live), so documents
      // in it would be counted in the hash but never uploaded.
      throw new Error(
        `${publishedFolder} would never be uploaded: ${publishedTicketsKeyPrefix} in the bucket ` +
          'holds the tickets published from the app, which deploys leave alone. Move its files up.',
      );
    }
    this.documentsHash = hashTicketDocuments(props.ticketsPath);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    const dimension = embeddingDimension(props.embeddingModelId);
    const mappings = {
      properties: {
        [knowledgeBaseFields.vector]: {
          type: 'knn_vector',
          dimension,
          method: {
            name: 'hnsw',
            engine: 'faiss',
            spaceType: 'l2',
            parameters: { efConstruction: 512, m: 16 },
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
    };
    const names = knowledgeBaseNames(props.namePrefix, {
      standbyReplicas: props.standbyReplicas ?? false,
      embeddingModelId: props.embeddingModelId,
      mappings,
    });
    this.vectorIndexName = names.index;
    const collectionResources = names.collectionNames.map((name) => `collection/${name}`);

    // --- documents -----------------------------------------------------------------------
    this.documentBucket = new s3.Bucket(this, 'Documents', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
    });
    const upload = new s3deploy.BucketDeployment(this, 'UploadTickets', {
      sources: [s3deploy.Source.asset(props.ticketsPath)],
      destinationBucket: this.documentBucket,
      destinationKeyPrefix: ticketsKeyPrefix,
      // Deleted tickets disappear from the bucket, and the next ingestion removes their vectors.
      prune: true,
      // …except the tickets published from the app (tickets/published/), which are not in the
      // repository. The provider runs `aws s3 sync <asset> s3://<bucket>/tickets/ --delete
      // --exclude 'published/*'`; the CLI joins each filter to the source root and to the
      // destination root (awscli/customizations/s3/filters.py, `_full_path_patterns`), so the
      // pattern is relative to `tickets/` and matches `<bucket>/tickets/published/<anything>`
      // (fnmatch's `*` crosses `/`). Matching objects are neither uploaded nor deleted (the
      // s3-deployment README, "Exclude and Include Filters"); every other seed ticket is still
      // pruned when its file is deleted.
      exclude: [`${publishedTicketsFolder}*`],
      logGroup: props.providerLogGroup,
    });
    acknowledgeBucketDeploymentProvider(this, this.documentBucket);
    Validations.of(this.documentBucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        "Holds copies of the repository's ticket documents, written by the deployment, and " +
        'the tickets editors publish (tickets/published/, written by the API function; each ' +
        'names its source and author hash in its metadata); read only by Bedrock. Enable ' +
        'CloudTrail S3 data events if object access must be audited.',
    });

    // --- the Knowledge Base's service role ------------------------------------------------
    const role = new iam.Role(this, 'ServiceRole', {
      assumedBy: new iam.ServicePrincipal('bedrock.amazonaws.com').withConditions({
        StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
        ArnLike: {
          'aws:SourceArn': stack.formatArn({ service: 'bedrock', resource: 'knowledge-base/*' }),
        },
      }),
      description: 'Bedrock Knowledge Base: embed the ticket documents into the vector collection',
    });

    // --- OpenSearch Serverless --------------------------------------------------------------
    const encryptionPolicy = new oss.CfnSecurityPolicy(this, 'EncryptionPolicy', {
      name: `${props.namePrefix}-enc`,
      type: 'encryption',
      policy: JSON.stringify({
        Rules: [{ ResourceType: 'collection', Resource: collectionResources }],
        AWSOwnedKey: true,
      }),
    });
    // Public endpoint: CloudFormation's index handler and Bedrock both call it from outside any
    // VPC. Every request is still SigV4-authenticated and checked against the data access policy.
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
    const deploymentRoleArn = props.deploymentRoleArn ?? defaultDeploymentRoleArn(stack);
    const dataAccessPolicy = new oss.CfnAccessPolicy(this, 'DataAccessPolicy', {
      name: `${props.namePrefix}-data`,
      type: 'data',
      policy: stack.toJsonString(
        vectorCollectionAccessRules(names.collectionNames, {
          knowledgeBaseRole: role.roleArn,
          administrators: [deploymentRoleArn, ...(props.adminRoleArns ?? [])],
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
    // active, so the policy is in force by the time CloudFormation creates the index.
    this.collection.addResourceDependency(encryptionPolicy);
    this.collection.addResourceDependency(networkPolicy);
    this.collection.addResourceDependency(dataAccessPolicy);

    this.index = new oss.CfnIndex(this, 'VectorIndex', {
      collectionEndpoint: this.collection.attrCollectionEndpoint,
      indexName: names.index,
      // Without knn true the mapping's `method` is rejected.
      settings: {
        index: { knn: true, knnAlgoParamEfSearch: 512 },
        analysis: {
          analyzer: {
            [JAPANESE_TEXT_ANALYZER.name]: {
              ...JAPANESE_TEXT_ANALYZER.definition,
              filter: [...JAPANESE_TEXT_ANALYZER.definition.filter],
            },
          },
        },
      },
      mappings,
    });
    this.index.addResourceDependency(this.collection);
    this.index.addResourceDependency(dataAccessPolicy);

    const embeddingModelArn = `arn:${Aws.PARTITION}:bedrock:${stack.region}::foundation-model/${props.embeddingModelId}`;
    const rolePolicy = new iam.Policy(this, 'ServiceRolePolicy', {
      roles: [role],
      statements: [
        new iam.PolicyStatement({
          sid: 'EmbedDocumentsAndQueries',
          actions: ['bedrock:InvokeModel'],
          resources: [embeddingModelArn],
        }),
        new iam.PolicyStatement({
          sid: 'UseVectorCollection',
          actions: ['aoss:APIAccessAll'],
          resources: [this.collection.attrArn],
        }),
        new iam.PolicyStatement({
          sid: 'ListTicketDocuments',
          actions: ['s3:ListBucket'],
          // No s3:prefix condition: the bucket holds only the tickets, and the policy AWS documents
          // for Knowledge Base roles has none — a connector listing without the prefix must not
          // fail ingestion silently.
          resources: [this.documentBucket.bucketArn],
        }),
        new iam.PolicyStatement({
          sid: 'ReadTicketDocuments',
          actions: ['s3:GetObject'],
          resources: [this.documentBucket.arnForObjects(`${ticketsKeyPrefix}*`)],
        }),
      ],
    });
    if (props.rerankingModelId) {
      rolePolicy.addStatements(...rerankStatements(this, props.rerankingModelId));
    }
    const isThirdParty = (modelId: string | undefined) =>
      modelId !== undefined && !modelId.startsWith('amazon.');
    if (isThirdParty(props.embeddingModelId) || isThirdParty(props.rerankingModelId)) {
      // A third-party model (Cohere embedding or reranker) is a Marketplace product: Bedrock
      // subscribes to it on the first call, as this role (see the API function's
      // SubscribeToModelOnFirstUse).
      rolePolicy.addStatements(
        new iam.PolicyStatement({
          sid: 'SubscribeToModelOnFirstUse',
          actions: ['aws-marketplace:Subscribe', 'aws-marketplace:ViewSubscriptions'],
          resources: ['*'],
          conditions: { StringEquals: { 'aws:CalledViaLast': 'bedrock.amazonaws.com' } },
        }),
      );
      Validations.of(rolePolicy).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'AWS Marketplace subscriptions have no resource ARN; Subscribe and ViewSubscriptions ' +
          'only, and only when Bedrock makes the call (aws:CalledViaLast).' +
          (props.rerankingModelId ? RERANK_ON_ANY_RESOURCE : ''),
      });
    } else if (props.rerankingModelId) {
      Validations.of(rolePolicy).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason: RERANK_ON_ANY_RESOURCE.trim(),
      });
    }
    Validations.of(rolePolicy).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${stack.getLogicalId(this.documentBucket.node.defaultChild as s3.CfnBucket)}.Arn>/${ticketsKeyPrefix}*]`,
      reason:
        'Bedrock reads every ticket document under tickets/ (names unknown at synth time); ' +
        'the grant is read-only and limited to that prefix of this bucket.',
    });

    const knowledgeBase = new bedrock.CfnKnowledgeBase(this, 'Resource', {
      name: names.knowledgeBase,
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
      storageConfiguration: {
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
      },
    });
    // Bedrock validates the store on create: the index must exist and the role must already be
    // allowed to use it, or creation fails with "storage configuration provided is invalid".
    knowledgeBase.addResourceDependency(this.index);
    // …and be queryable, which an OpenSearch Serverless index is only some time after
    // CreateIndex returns: "Dependency error document status code: 404, error message: no such
    // index" (aws-samples/amazon-bedrock-knowledgebase-slackbot#7,
    // aws/modern-data-architecture-accelerator#33). Other projects wait after creating the index
    // (GenU waits in its index custom resource); here a small resource waits after it, and runs
    // again whenever the index is replaced (its properties name the index).
    knowledgeBase.node.addDependency(
      this.waitForIndex(names.index, props.providerLogGroup, indexPropagationSeconds),
    );
    knowledgeBase.addResourceDependency(dataAccessPolicy);
    knowledgeBase.node.addDependency(rolePolicy);
    this.knowledgeBaseId = knowledgeBase.attrKnowledgeBaseId;
    this.knowledgeBaseArn = knowledgeBase.attrKnowledgeBaseArn;
    this.ingestionLogs = new KnowledgeBaseIngestionLogs(this, 'IngestionLogs', {
      knowledgeBaseId: this.knowledgeBaseId,
      knowledgeBaseArn: this.knowledgeBaseArn,
      // Named after the Knowledge Base, so a replaced Knowledge Base gets a new delivery source
      // instead of a name clash (≤ 50 characters: names.knowledgeBase is ≤ 40).
      deliveryName: `${names.knowledgeBase}-ingestion`,
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
      // RETAIN: on stack deletion the collection goes too, so deleting vectors one by one first
      // only adds a failure mode.
      dataDeletionPolicy: 'RETAIN',
    });
    this.dataSourceId = dataSource.attrDataSourceId;

    // --- ingestion ------------------------------------------------------------------------
    // The physical id is the documents' hash: a changed document changes the resource, which
    // CloudFormation treats as a replacement and so calls StartIngestionJob again. The job is
    // asynchronous (the deploy does not wait for it) and one runs per data source at a time.
    const startIngestion: cr.AwsSdkCall = {
      service: 'bedrock-agent',
      action: 'startIngestionJob',
      parameters: {
        knowledgeBaseId: this.knowledgeBaseId,
        dataSourceId: this.dataSourceId,
        description: `Deployed documents ${this.documentsHash.slice(0, 16)}`,
      },
      physicalResourceId: cr.PhysicalResourceId.of(`tickets-${this.documentsHash}`),
      // A job already running (an earlier deploy's, or `npm run ingest`) is not a deploy failure,
      // and must not fail a rollback, which calls this again with the old properties. The
      // running job may predate the new documents: `npm run ingest` (run by `npm run deploy`)
      // reports it and starts the sync that picks them up.
      ignoreErrorCodesMatching: 'ConflictException',
    };
    // No onDelete: deleting the resource calls nothing, so it cannot fail.
    const ingestion = new cr.AwsCustomResource(this, 'StartIngestionJob', {
      onCreate: startIngestion,
      onUpdate: startIngestion,
      policy: cr.AwsCustomResourcePolicy.fromSdkCalls({ resources: [this.knowledgeBaseArn] }),
      // The Lambda runtime's bundled SDK has bedrock-agent; installing one at deploy time would
      // need npm and the internet from the provider function.
      installLatestAwsSdk: false,
      logGroup: props.providerLogGroup,
    });
    ingestion.node.addDependency(upload, dataSource);
    acknowledgeAwsCustomResourceProvider(this);
  }

  /**
   * A custom resource that returns `seconds` after the index is created (on Create and Update;
   * Delete returns at once). Inline and dependency-free: it only sleeps and answers
   * CloudFormation's pre-signed response URL.
   */
  private waitForIndex(
    indexName: string,
    logGroup: logs.ILogGroup | undefined,
    seconds: number,
  ): CustomResource {
    const role = new iam.Role(this, 'IndexWaitRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'Waits for the vector index to become queryable; no AWS API access',
    });
    const handler = new lambda.Function(this, 'IndexWait', {
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      role,
      logGroup,
      timeout: Duration.seconds(seconds + 60),
      code: lambda.Code.fromInline(
        [
          'exports.handler = async (event) => {',
          "  let status = 'SUCCESS';",
          "  let reason = '';",
          '  try {',
          "    if (event.RequestType !== 'Delete') {",
          '      const ms = Number(event.ResourceProperties.Seconds) * 1000;',
          '      await new Promise((resolve) => setTimeout(resolve, ms));',
          '    }',
          '  } catch (error) {',
          "    status = 'FAILED';",
          '    reason = String(error);',
          '  }',
          '  const body = JSON.stringify({',
          '    Status: status,',
          '    Reason: reason,',
          '    PhysicalResourceId: event.PhysicalResourceId || event.LogicalResourceId,',
          '    StackId: event.StackId,',
          '    RequestId: event.RequestId,',
          '    LogicalResourceId: event.LogicalResourceId,',
          '  });',
          "  await fetch(event.ResponseURL, { method: 'PUT', headers: { 'content-type': '' }, body });",
          '};',
        ].join('\n'),
      ),
    });
    if (logGroup) logGroup.grantWrite(role);
    const wait = new CustomResource(this, 'VectorIndexQueryable', {
      serviceToken: handler.functionArn,
      resourceType: 'Custom::VectorIndexQueryable',
      properties: { IndexName: indexName, Seconds: seconds },
    });
    wait.node.addDependency(this.index);
    return wait;
  }
}

/** How long the Knowledge Base waits after its vector index is created. */
export const indexPropagationSeconds = 60;

/** The CDK bootstrap role CloudFormation runs as, with `${AWS::…}` placeholders substituted. */
function defaultDeploymentRoleArn(stack: Stack): string {
  if (!(stack.synthesizer instanceof DefaultStackSynthesizer)) {
    throw new Error(
      'Set deploymentRoleArn: the stack does not use DefaultStackSynthesizer, so the role ' +
        'CloudFormation runs as (which must create the vector index) is unknown.',
    );
  }
  // For an environment-agnostic stack the ARN holds literal ${AWS::AccountId} placeholders.
  return Fn.sub(stack.synthesizer.cloudFormationExecutionRoleArn);
}
