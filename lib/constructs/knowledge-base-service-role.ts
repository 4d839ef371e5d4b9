import { Aws, Stack, type aws_s3 as s3, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { rerankStatements } from '../bedrock-model-access.js';
import type { EmbeddingModelId } from '../config.js';
import { ticketsKeyPrefix } from '../deployed-stack-names.js';

const RERANK_ON_ANY_RESOURCE =
  ' bedrock:Rerank has no resource type (AWS documents it on *); the model it may invoke is ' +
  'scoped by the separate InvokeModel grant on the reranker ARN.';

/**
 * The Knowledge Base's service role (`ServiceRole` in `scope`), which only Bedrock Knowledge
 * Bases of this account may assume. Created before the vector store, which grants it access.
 */
export function createKnowledgeBaseServiceRole(scope: Construct): iam.Role {
  return new iam.Role(scope, 'ServiceRole', {
    assumedBy: new iam.ServicePrincipal('bedrock.amazonaws.com').withConditions({
      StringEquals: { 'aws:SourceAccount': Aws.ACCOUNT_ID },
      ArnLike: {
        'aws:SourceArn': Stack.of(scope).formatArn({
          service: 'bedrock',
          resource: 'knowledge-base/*',
        }),
      },
    }),
    description: 'Bedrock Knowledge Base: embed the ticket documents into the vector store',
  });
}

export interface KnowledgeBaseServiceRolePolicyProps {
  readonly embeddingModelId: EmbeddingModelId;
  /** `arn:…:foundation-model/<embeddingModelId>`, as the Knowledge Base names it. */
  readonly embeddingModelArn: string;
  /** What the vector store lets the role do on it. */
  readonly vectorStoreStatements: readonly iam.PolicyStatement[];
  readonly documentBucket: s3.IBucket;
  /** The reranker `Retrieve` may be asked to use. @default none */
  readonly rerankingModelId?: string;
}

/**
 * What the service role may do (`ServiceRolePolicy` in `scope`): embed with the embedding model,
 * use the vector store, list the document bucket and read the ticket documents under
 * `tickets/`, rerank with the reranker, and subscribe to a third-party model on first use. The
 * Knowledge Base is created after it: Bedrock checks the role's access on create.
 */
export function grantKnowledgeBaseServiceRole(
  scope: Construct,
  role: iam.IRole,
  props: KnowledgeBaseServiceRolePolicyProps,
): iam.Policy {
  const rolePolicy = new iam.Policy(scope, 'ServiceRolePolicy', {
    roles: [role],
    statements: [
      new iam.PolicyStatement({
        sid: 'EmbedDocumentsAndQueries',
        actions: ['bedrock:InvokeModel'],
        resources: [props.embeddingModelArn],
      }),
      ...props.vectorStoreStatements,
      new iam.PolicyStatement({
        sid: 'ListTicketDocuments',
        actions: ['s3:ListBucket'],
        resources: [props.documentBucket.bucketArn],
        // The data source lists under its inclusion prefix only (tickets/).
        conditions: { StringLike: { 's3:prefix': [`${ticketsKeyPrefix}*`] } },
      }),
      new iam.PolicyStatement({
        sid: 'ReadTicketDocuments',
        actions: ['s3:GetObject'],
        resources: [props.documentBucket.arnForObjects(`${ticketsKeyPrefix}*`)],
      }),
    ],
  });
  if (props.rerankingModelId) {
    rolePolicy.addStatements(...rerankStatements(scope, props.rerankingModelId));
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
  const bucket = props.documentBucket.node.defaultChild as s3.CfnBucket;
  Validations.of(rolePolicy).acknowledge({
    id: `AwsSolutions-IAM5[Resource::<${Stack.of(scope).getLogicalId(bucket)}.Arn>/${ticketsKeyPrefix}*]`,
    reason:
      'Bedrock reads every ticket document under tickets/ (names unknown at synth time); ' +
      'the grant is read-only and limited to that prefix of this bucket.',
  });
  return rolePolicy;
}
