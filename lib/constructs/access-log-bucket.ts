import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { Construct } from 'constructs';

export interface AccessLogBucketProps {
  /** Days a log object is kept (`accessLogRetentionDays`). */
  readonly retentionDays: number;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
}

/** Where each source writes in the log bucket. */
export const accessLogPrefixes = {
  cloudFront: 'cloudfront/',
  /** Followed by the bucket's role: `s3/web-assets/`, `s3/ticket-documents/`, … */
  s3: 's3/',
} as const;

/**
 * The audit bucket of access logs (`accessLogs`): CloudFront standard logs of the distribution
 * under `cloudfront/` and S3 server access logs of the stack's buckets under `s3/<bucket role>/`,
 * each deleted `retentionDays` after it was written.
 *
 * SSE-S3, not the customer key: S3 delivers server access logs only to SSE-S3 buckets. ACLs
 * stay enabled (bucket owner preferred): CloudFront standard logging writes through the
 * `awslogsdelivery` ACL grant it adds when the distribution is created. Public access is blocked.
 */
export class AccessLogBucket extends Construct {
  readonly bucket: s3.Bucket;

  constructor(scope: Construct, id: string, props: AccessLogBucketProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.bucket = new s3.Bucket(this, 'Default', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [
        {
          id: 'ExpireAccessLogs',
          expiration: Duration.days(props.retentionDays),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
    });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'This is the access-log bucket itself; logging it into itself would log its own log ' +
        'writes without end. Reads of it are recorded by CloudTrail (docs/deploy.md, Audit).',
    });
  }

  /** The server access log settings of a bucket, for `s3.BucketProps`. */
  forBucket(
    role: string,
  ): Pick<s3.BucketProps, 'serverAccessLogsBucket' | 'serverAccessLogsPrefix'> {
    return {
      serverAccessLogsBucket: this.bucket,
      serverAccessLogsPrefix: `${accessLogPrefixes.s3}${role}/`,
    };
  }
}
