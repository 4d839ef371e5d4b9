import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as cr from 'aws-cdk-lib/custom-resources';
import { Construct } from 'constructs';
import { acknowledgeAwsCustomResourceProvider } from '../nag-acknowledgements.js';
import type { AccessLogBucket } from './access-log-bucket.js';

export interface ModelInvocationLoggingProps {
  /**
   * The stack's customer key (`kmsKey`), whose policy lets Bedrock write with it.
   * @default a key of its own, rotated yearly
   */
  readonly key?: kms.IKey;
  /** Days the invocation logs are kept. */
  readonly retentionDays: number;
  /** Where the bucket's own access logs go. @default not logged */
  readonly accessLogs?: AccessLogBucket;
  /** Log group of the AwsCustomResource provider. @default a CDK-managed group */
  readonly providerLogGroup?: logs.ILogGroup;
}

/**
 * Bedrock model invocation logging (prompts and completions, text only) to an S3 bucket of this
 * stack encrypted with a customer key: PutModelInvocationLoggingConfiguration on create and
 * update. The setting is per account and region, so lib/config.ts turns it on only with
 * `modelInvocationLogging: replace-account-setting`.
 *
 * Nothing is undone on delete: the bucket and its key are retained and the account's setting
 * stays pointed at them, because audit records must outlive the application that produced them
 * (turning logging off is `aws bedrock delete-model-invocation-logging-configuration`,
 * docs/deploy.md).
 */
export class ModelInvocationLogging extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: ModelInvocationLoggingProps) {
    super(scope, id);
    const stack = Stack.of(this);
    const key =
      props.key ??
      new kms.Key(this, 'Key', {
        description: `${stack.stackName}: Bedrock model invocation logs`,
        enableKeyRotation: true,
        removalPolicy: RemovalPolicy.RETAIN,
      });
    const bedrockConditions = {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'bedrock', resource: '*' }) },
    };
    if (!props.key) {
      // The confused-deputy conditions of the Bedrock model invocation logging guide.
      key.addToResourcePolicy(
        new iam.PolicyStatement({
          principals: [new iam.ServicePrincipal('bedrock.amazonaws.com')],
          actions: ['kms:GenerateDataKey'],
          resources: ['*'],
          conditions: bedrockConditions,
        }),
      );
    }
    // Not `Logs`: that logical id was the log group of earlier versions, and CloudFormation cannot
    // change a resource's type in place.
    this.bucket = new s3.Bucket(this, 'Bucket', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.KMS,
      encryptionKey: key,
      bucketKeyEnabled: true,
      enforceSSL: true,
      lifecycleRules: [
        { id: 'ExpireInvocationLogs', expiration: Duration.days(props.retentionDays) },
      ],
      removalPolicy: RemovalPolicy.RETAIN,
      ...props.accessLogs?.forBucket('model-invocation-logs'),
    });
    const logPrefix = `AWSLogs/${stack.account}/BedrockModelInvocationLogs/*`;
    const bucketPolicy = this.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'BedrockWritesInvocationLogs',
        principals: [new iam.ServicePrincipal('bedrock.amazonaws.com')],
        actions: ['s3:PutObject'],
        resources: [this.bucket.arnForObjects(logPrefix)],
        conditions: bedrockConditions,
      }),
    );

    const loggingConfig = {
      s3Config: { bucketName: this.bucket.bucketName },
      textDataDeliveryEnabled: true,
      imageDataDeliveryEnabled: false,
      embeddingDataDeliveryEnabled: false,
    };
    const call: cr.AwsSdkCall = {
      service: 'Bedrock',
      action: 'PutModelInvocationLoggingConfiguration',
      parameters: { loggingConfig },
      physicalResourceId: cr.PhysicalResourceId.of(`${stack.stackName}-model-invocation-logging`),
    };
    // No onDelete: the account's setting outlives the stack (see the class comment).
    const configuration = new cr.AwsCustomResource(this, 'Logging', {
      onCreate: call,
      onUpdate: call,
      policy: cr.AwsCustomResourcePolicy.fromStatements([
        new iam.PolicyStatement({
          actions: ['bedrock:PutModelInvocationLoggingConfiguration'],
          // The action has no resource type (Service Authorization Reference): the region is
          // named instead, the one setting this stack changes.
          resources: ['*'],
          conditions: { StringEquals: { 'aws:RequestedRegion': stack.region } },
        }),
      ]),
      installLatestAwsSdk: false,
      logGroup: props.providerLogGroup,
    });
    // Bedrock checks on the call that it may write to the bucket.
    if (bucketPolicy.policyDependable)
      configuration.node.addDependency(bucketPolicy.policyDependable);
    acknowledgeAwsCustomResourceProvider(this);
    Validations.of(configuration).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'bedrock:PutModelInvocationLoggingConfiguration takes no resource: the setting is per ' +
        'account and region.',
    });
    if (!props.accessLogs) {
      Validations.of(this.bucket).acknowledge({
        id: 'AwsSolutions-S1',
        reason:
          'accessLogs is off for this deployment; CloudTrail S3 data events record reads of ' +
          'the invocation logs where the company enables them (docs/deploy.md, Audit).',
      });
    }
  }
}
