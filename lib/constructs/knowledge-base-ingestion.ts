import type * as logs from 'aws-cdk-lib/aws-logs';
import * as cr from 'aws-cdk-lib/custom-resources';
import type { Construct, IDependable } from 'constructs';
import { acknowledgeAwsCustomResourceProvider } from '../nag-acknowledgements.js';

export interface TicketIngestionProps {
  readonly knowledgeBaseId: string;
  readonly knowledgeBaseArn: string;
  readonly dataSourceId: string;
  /** SHA-256 of the ticket files; a new value starts a new ingestion job. */
  readonly documentsHash: string;
  /** What must be in place first: the uploaded documents and the data source. */
  readonly after: readonly IDependable[];
  /** @default CDK-managed `/aws/lambda/<function>` group */
  readonly providerLogGroup?: logs.ILogGroup;
}

/**
 * Starts an ingestion job of the data source (`StartIngestionJob` in `scope`) on create and
 * whenever the deployed documents change.
 */
export function startIngestionOnChange(scope: Construct, props: TicketIngestionProps): void {
  // --- ingestion ------------------------------------------------------------------------
  // The physical id is the documents' hash: a changed document changes the resource, which
  // CloudFormation treats as a replacement and so calls StartIngestionJob again. The job is
  // asynchronous (the deploy does not wait for it) and one runs per data source at a time.
  const startIngestion: cr.AwsSdkCall = {
    service: 'bedrock-agent',
    action: 'startIngestionJob',
    parameters: {
      knowledgeBaseId: props.knowledgeBaseId,
      dataSourceId: props.dataSourceId,
      description: `Deployed documents ${props.documentsHash.slice(0, 16)}`,
    },
    physicalResourceId: cr.PhysicalResourceId.of(`tickets-${props.documentsHash}`),
    // A job already running (an earlier deploy's, or `npm run ingest`) is not a deploy failure,
    // and must not fail a rollback, which calls this again with the old properties. The
    // running job may predate the new documents: `npm run ingest` (run by `npm run deploy`)
    // reports it and starts the sync that picks them up.
    ignoreErrorCodesMatching: 'ConflictException',
  };
  // No onDelete: deleting the resource calls nothing, so it cannot fail.
  const ingestion = new cr.AwsCustomResource(scope, 'StartIngestionJob', {
    onCreate: startIngestion,
    onUpdate: startIngestion,
    policy: cr.AwsCustomResourcePolicy.fromSdkCalls({ resources: [props.knowledgeBaseArn] }),
    // The Lambda runtime's bundled SDK has bedrock-agent; installing one at deploy time would
    // need npm and the internet from the provider function.
    installLatestAwsSdk: false,
    logGroup: props.providerLogGroup,
  });
  ingestion.node.addDependency(...props.after);
  acknowledgeAwsCustomResourceProvider(scope);
}
