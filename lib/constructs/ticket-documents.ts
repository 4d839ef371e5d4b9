import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import {
  importedTicketsKeyPrefix,
  publishedTicketsKeyPrefix,
  ticketsKeyPrefix,
} from '../deployed-stack-names.js';
import { acknowledgeBucketDeploymentProvider } from '../nag-acknowledgements.js';
import type { AccessLogBucket } from './access-log-bucket.js';
import { hashTicketDocuments } from './hash-ticket-documents.js';

/** `published/`: the published tickets' folder relative to {@link ticketsKeyPrefix}. */
const publishedTicketsFolder = publishedTicketsKeyPrefix.slice(ticketsKeyPrefix.length);
/** `imported/`: the imported tickets' folder relative to {@link ticketsKeyPrefix}. */
const importedTicketsFolder = importedTicketsKeyPrefix.slice(ticketsKeyPrefix.length);

export interface TicketDocumentsProps {
  /** Directory of `<id>.md` + `<id>.md.metadata.json` documents, uploaded on every deploy. */
  readonly ticketsPath: string;
  /** @default RemovalPolicy.RETAIN */
  readonly removalPolicy?: RemovalPolicy;
  /** Where the bucket's server access logs go. @default not logged */
  readonly accessLogs?: AccessLogBucket;
  /**
   * Days a deleted or overwritten ticket stays recoverable as a noncurrent version.
   * @default 90
   */
  readonly noncurrentVersionDays?: number;
  /** Log group of the BucketDeployment provider. @default a CDK-managed group */
  readonly providerLogGroup?: logs.ILogGroup;
}

/**
 * The Knowledge Base's documents: the bucket its data source reads, the repository's tickets
 * uploaded under `tickets/` on every deploy (pruned, except the tickets published from the app),
 * and the hash of those files, which starts a new ingestion job when it changes.
 */
export class TicketDocuments extends Construct {
  readonly bucket: s3.Bucket;
  /** The upload; ingestion starts after it. */
  readonly upload: s3deploy.BucketDeployment;
  /** SHA-256 of the ticket files; a new value starts a new ingestion job. */
  readonly documentsHash: string;

  constructor(scope: Construct, id: string, props: TicketDocumentsProps) {
    super(scope, id);
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
    // `Default`: CDK leaves it out of logical ids, so the bucket keeps the id it had before this
    // construct existed (`KnowledgeBaseDocuments…`) and a retained bucket is not swapped for a new
    // one — the published tickets live in it.
    this.bucket = new s3.Bucket(this, 'Default', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      encryption: s3.BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      // A ticket deleted by a deploy's pruning, or overwritten by a publish, stays recoverable.
      versioned: true,
      lifecycleRules: [
        {
          id: 'ExpireOldTicketVersions',
          noncurrentVersionExpiration: Duration.days(props.noncurrentVersionDays ?? 90),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
      removalPolicy,
      autoDeleteObjects: removalPolicy === RemovalPolicy.DESTROY,
      ...props.accessLogs?.forBucket('ticket-documents'),
    });
    this.upload = new s3deploy.BucketDeployment(this, 'UploadTickets', {
      sources: [s3deploy.Source.asset(props.ticketsPath)],
      destinationBucket: this.bucket,
      destinationKeyPrefix: ticketsKeyPrefix,
      // Deleted tickets disappear from the bucket, and the next ingestion removes their vectors.
      prune: true,
      // …except the tickets published from the app (tickets/published/) and those uploaded by
      // `npm run import -- --upload` (tickets/imported/), which are not in the repository. The provider runs `aws s3 sync <asset> s3://<bucket>/tickets/ --delete
      // --exclude 'published/*'`; the CLI joins each filter to the source root and to the
      // destination root (awscli/customizations/s3/filters.py, `_full_path_patterns`), so the
      // pattern is relative to `tickets/` and matches `<bucket>/tickets/published/<anything>`
      // (fnmatch's `*` crosses `/`). Matching objects are neither uploaded nor deleted (the
      // s3-deployment README, "Exclude and Include Filters"); every other seed ticket is still
      // pruned when its file is deleted.
      exclude: [`${publishedTicketsFolder}*`, `${importedTicketsFolder}*`],
      logGroup: props.providerLogGroup,
    });
    acknowledgeBucketDeploymentProvider(this, this.bucket);
    if (!props.accessLogs) {
      Validations.of(this.bucket).acknowledge({
        id: 'AwsSolutions-S1',
        reason:
          'accessLogs is off for this deployment (it is on by default); CloudTrail S3 data ' +
          'events record object access where the company enables them (docs/deploy.md, Audit).',
      });
    }
  }
}
