import {
  AspectPriority,
  Aspects,
  Aws,
  CfnResource,
  Duration,
  aws_dynamodb as dynamodb,
  type IAspect,
  aws_iam as iam,
  aws_kms as kms,
  aws_logs as logs,
  aws_opensearchserverless as oss,
  RemovalPolicy,
  Stack,
  aws_s3 as s3,
  aws_s3vectors as s3vectors,
} from 'aws-cdk-lib';
import { Construct, type IConstruct } from 'constructs';

export interface CustomerManagedKeyProps {
  /**
   * An existing key in the stack's region (`kmsKey: <arn>`); its key policy must already allow
   * what {@link CustomerManagedKey.keyPolicyStatements} lists (docs/deploy.md).
   * @default a new key of this stack, rotated yearly
   */
  readonly keyArn?: string;
}

/**
 * The customer-managed KMS key of the stack (`kmsKey`), and the aspect that puts it on every
 * DynamoDB table, S3 bucket, S3 Vectors bucket, OpenSearch Serverless collection (its encryption
 * policy) and CloudWatch log group of the stack — those CDK adds itself (provider logs) included,
 * so a resource added later cannot be missed. One key, not one per resource: one policy to
 * review, one rotation, one place to revoke (disabling it makes every copy unreadable).
 *
 * The key policy lets the services use the key on the account's behalf as their AWS-managed
 * keys do (any principal of this account, only through DynamoDB, S3, S3 Vectors and OpenSearch
 * Serverless), so IAM on the resources stays the one gate and no grant needs a KMS statement;
 * plus the service principals that write or read without a caller (CloudWatch Logs for the log
 * groups, CloudFront for the web assets, Bedrock for the invocation logs, S3 Vectors' background
 * indexing).
 *
 * Exempt: buckets that receive S3 server access logs, which S3 delivers only to SSE-S3 buckets
 * (S3 user guide, "Enabling Amazon S3 server access logging").
 *
 * @example
 * const key = new CustomerManagedKey(stack, 'CustomerKey', {});
 * key.encryptEveryResourceOf(stack, { except: [logBucket] });
 */
export class CustomerManagedKey extends Construct {
  readonly key: kms.IKey;
  /** False for an imported key: its policy is the owner's to change. */
  readonly created: boolean;

  constructor(scope: Construct, id: string, props: CustomerManagedKeyProps) {
    super(scope, id);
    if (props.keyArn) {
      this.key = kms.Key.fromKeyArn(this, 'Key', props.keyArn);
      this.created = false;
      return;
    }
    this.created = true;
    this.key = new kms.Key(this, 'Key', {
      description: `${Stack.of(this).stackName}: tables, buckets, vector store and log groups`,
      enableKeyRotation: true,
      rotationPeriod: Duration.days(365),
      // Deleting the key destroys every copy of the data; that must be a deliberate act.
      removalPolicy: RemovalPolicy.RETAIN,
      pendingWindow: Duration.days(30),
    });
    for (const statement of CustomerManagedKey.keyPolicyStatements(Stack.of(this))) {
      this.key.addToResourcePolicy(statement);
    }
  }

  /**
   * What the key policy must allow besides the account's own administration: the statements the
   * created key gets, and those an imported key's owner must add.
   */
  static keyPolicyStatements(stack: Stack): iam.PolicyStatement[] {
    const region = stack.region;
    const account = stack.account;
    return [
      new iam.PolicyStatement({
        sid: 'UseThroughDataServicesOfThisAccount',
        principals: [new iam.AnyPrincipal()],
        actions: [
          'kms:Encrypt',
          'kms:Decrypt',
          'kms:ReEncrypt*',
          'kms:GenerateDataKey*',
          'kms:CreateGrant',
          'kms:DescribeKey',
        ],
        resources: ['*'],
        conditions: {
          StringEquals: {
            'kms:CallerAccount': account,
            'kms:ViaService': ['dynamodb', 's3', 's3vectors', 'aoss'].map(
              (service) => `${service}.${region}.amazonaws.com`,
            ),
          },
        },
      }),
      new iam.PolicyStatement({
        // S3 Vectors indexes the vectors in the background as its own service principal
        // (S3 user guide, "Data protection and encryption in S3 Vectors").
        sid: 'S3VectorsIndexesThisAccountsBuckets',
        principals: [new iam.ServicePrincipal('indexing.s3vectors.amazonaws.com')],
        actions: ['kms:Decrypt'],
        resources: ['*'],
        conditions: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: {
            'aws:SourceArn': `arn:${Aws.PARTITION}:s3vectors:${region}:${account}:bucket/*`,
          },
        },
      }),
      new iam.PolicyStatement({
        sid: 'CloudWatchLogsOfThisAccount',
        principals: [new iam.ServicePrincipal(`logs.${region}.amazonaws.com`)],
        actions: [
          'kms:Encrypt*',
          'kms:Decrypt*',
          'kms:ReEncrypt*',
          'kms:GenerateDataKey*',
          'kms:Describe*',
        ],
        resources: ['*'],
        conditions: {
          ArnLike: {
            'kms:EncryptionContext:aws:logs:arn': `arn:${Aws.PARTITION}:logs:${region}:${account}:log-group:*`,
          },
        },
      }),
      new iam.PolicyStatement({
        // Origin access control reads the web assets as CloudFront. Any distribution of this
        // account: naming this stack's would make the key depend on the distribution, which
        // depends on the bucket, which depends on the key.
        sid: 'CloudFrontReadsWebAssets',
        principals: [new iam.ServicePrincipal('cloudfront.amazonaws.com')],
        actions: ['kms:Decrypt'],
        resources: ['*'],
        conditions: {
          ArnLike: {
            'aws:SourceArn': `arn:${Aws.PARTITION}:cloudfront::${account}:distribution/*`,
          },
        },
      }),
      new iam.PolicyStatement({
        // Bedrock writes model invocation logs to S3 as its own service principal.
        sid: 'BedrockWritesInvocationLogs',
        principals: [new iam.ServicePrincipal('bedrock.amazonaws.com')],
        actions: ['kms:GenerateDataKey'],
        resources: ['*'],
        conditions: {
          StringEquals: { 'aws:SourceAccount': account },
          ArnLike: { 'aws:SourceArn': `arn:${Aws.PARTITION}:bedrock:${region}:${account}:*` },
        },
      }),
    ];
  }

  /** Puts the key on every encryptable resource of `scope`'s stack but `except` (and theirs). */
  encryptEveryResourceOf(scope: IConstruct, options: { except: readonly IConstruct[] }): void {
    Aspects.of(scope).add(new EncryptWithKey(this.key.keyArn, options.except), {
      priority: AspectPriority.MUTATING,
    });
  }
}

/** The aspect behind {@link CustomerManagedKey.encryptEveryResourceOf}. */
class EncryptWithKey implements IAspect {
  private readonly exempt: Set<IConstruct>;

  constructor(
    private readonly keyArn: string,
    except: readonly IConstruct[],
  ) {
    this.exempt = new Set(except.flatMap((construct) => construct.node.findAll()));
  }

  visit(node: IConstruct): void {
    if (!(node instanceof CfnResource) || this.exempt.has(node)) return;
    if (node instanceof dynamodb.CfnTable) {
      node.sseSpecification = { sseEnabled: true, sseType: 'KMS', kmsMasterKeyId: this.keyArn };
    } else if (node instanceof s3.CfnBucket) {
      node.bucketEncryption = {
        serverSideEncryptionConfiguration: [
          {
            serverSideEncryptionByDefault: {
              sseAlgorithm: 'aws:kms',
              kmsMasterKeyId: this.keyArn,
            },
            // One data key per bucket and period instead of one KMS call per object.
            bucketKeyEnabled: true,
          },
        ],
      };
    } else if (node instanceof logs.CfnLogGroup) {
      node.kmsKeyId = this.keyArn;
    } else if (node instanceof s3vectors.CfnVectorBucket) {
      node.encryptionConfiguration = { sseType: 'aws:kms', kmsKeyArn: this.keyArn };
    } else if (node instanceof oss.CfnSecurityPolicy && node.type === 'encryption') {
      const policy = JSON.parse(node.policy) as Record<string, unknown>;
      const { AWSOwnedKey: _awsOwned, ...rules } = policy;
      node.policy = Stack.of(node).toJsonString({
        ...rules,
        AWSOwnedKey: false,
        KmsARN: this.keyArn,
      });
    }
  }
}
