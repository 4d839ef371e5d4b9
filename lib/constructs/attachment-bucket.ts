import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';
import { resourceAsNagRendersIt } from '../nag-acknowledgements.js';
import type { AccessLogBucket } from './access-log-bucket.js';

export interface AttachmentBucketProps {
  /**
   * Days an attachment is kept: the conversations' retention (`retentionDays`), so a screenshot
   * never outlives the longest a conversation can be kept without activity.
   */
  readonly retentionDays: number;
  /** Folder of the attachments (`ATTACHMENTS_KEY_PREFIX`). */
  readonly keyPrefix: string;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Where the bucket's server access logs go. @default not logged */
  readonly accessLogs?: AccessLogBucket;
}

/**
 * The private bucket of attachments' bytes (ADR 0030): public access blocked, TLS only, encrypted
 * (SSE-S3, or the stack's customer key where it has one), and a lifecycle rule that deletes each
 * attachment `retentionDays` after its upload. Only the API function may put, get and delete
 * under the attachments' folder ({@link grantReadWrite}).
 */
export class AttachmentBucket extends Construct {
  readonly bucket: s3.Bucket;
  readonly keyPrefix: string;

  constructor(scope: Construct, id: string, props: AttachmentBucketProps) {
    super(scope, id);
    this.keyPrefix = props.keyPrefix;
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.bucket = new s3.Bucket(this, 'Default', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        {
          id: 'ExpireAttachments',
          prefix: props.keyPrefix,
          expiration: Duration.days(props.retentionDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
      ...props.accessLogs?.forBucket('attachments'),
    });
    if (!props.accessLogs) {
      Validations.of(this.bucket).acknowledge({
        id: 'AwsSolutions-S1',
        reason:
          'accessLogs is off for this deployment (it is on by default); CloudTrail S3 data ' +
          'events record object access where the company enables them (docs/deploy.md, Audit).',
      });
    }
  }

  /** Lets `grantee` put, read and delete attachments (the folder only; no listing). */
  grantReadWrite(role: iam.Role): void {
    const objects = this.bucket.arnForObjects(`${this.keyPrefix}*`);
    role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['s3:PutObject', 's3:GetObject', 's3:DeleteObject'],
        resources: [objects],
      }),
    );
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${resourceAsNagRendersIt(role, objects)}]`,
      reason:
        'Attachments are named by ids made at upload, so their keys are unknown at synth time; ' +
        'the grant is put, get and delete only, under the attachments folder of their own bucket.',
    });
  }
}
