import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  BedrockAgentClient,
  ConflictException,
  GetIngestionJobCommand,
  type IngestionJob,
  ListIngestionJobsCommand,
  ListKnowledgeBaseDocumentsCommand,
  StartIngestionJobCommand,
} from '@aws-sdk/client-bedrock-agent';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { configKeys, parseServiceDeskConfig } from '../lib/config.js';
import { stackOutputNames } from '../lib/deployed-stack-names.js';

/**
 * `npm run ingest`: syncs the deployed Knowledge Base with the ticket documents in its bucket —
 * starts an ingestion job, or attaches to the one already running (a deploy starts one) — and
 * prints its progress, then every document that failed. Exits 1 when the job fails, stops, or
 * leaves a document out; 0 when every document is indexed.
 *
 *   npm run ingest                       start a sync (or follow the running one)
 *   npm run ingest -- --latest           only report the latest job (run by `npm run deploy`)
 *   npm run ingest -- --stack X --region Y
 *
 * The Knowledge Base and data source come from the stack outputs (DescribeStacks); the stack
 * name and region from cdk.json, as `cdk deploy` uses them.
 */
const { values: options } = parseArgs({
  options: {
    stack: { type: 'string' },
    region: { type: 'string' },
    latest: { type: 'boolean', default: false },
    'poll-seconds': { type: 'string', default: '10' },
  },
});

const context = JSON.parse(readFileSync(new URL('../cdk.json', import.meta.url), 'utf8')).context;
const config = parseServiceDeskConfig(
  Object.fromEntries(
    configKeys
      .map((key) => [key, context[key]] as const)
      .filter(([, value]) => value !== undefined && value !== null),
  ),
);
const stackName = options.stack ?? config.stackName;
const region = options.region ?? process.env.AWS_REGION ?? config.region;
const pollMilliseconds = Number(options['poll-seconds']) * 1000;
const runningStatuses = new Set(['STARTING', 'IN_PROGRESS', 'STOPPING']);

const cloudFormation = new CloudFormationClient({ region });
const bedrockAgent = new BedrockAgentClient({ region });

async function main(): Promise<number> {
  const outputs = await readStackOutputs();
  const knowledgeBaseId = outputs[stackOutputNames.knowledgeBaseId];
  const dataSourceId = outputs[stackOutputNames.dataSourceId];
  if (!knowledgeBaseId || !dataSourceId) {
    console.log(
      `SKIPPED: ${stackName} (${region}) reuses Knowledge Base ${knowledgeBaseId ?? '?'} ` +
        '(existingKnowledgeBaseId); sync it where it is managed.',
    );
    return 0;
  }
  const ids = { knowledgeBaseId, dataSourceId };
  let job = await latestJob(ids);
  if (!options.latest && !(job?.status && runningStatuses.has(job.status))) {
    job = await startOrAttach(ids);
  }
  if (!job?.ingestionJobId) {
    console.log(`No ingestion job has run on Knowledge Base ${knowledgeBaseId} yet.`);
    return options.latest ? 0 : 1;
  }
  console.log(
    `Ingestion job ${job.ingestionJobId} on Knowledge Base ${knowledgeBaseId} (${region}): ` +
      `started ${job.startedAt?.toISOString() ?? '?'}`,
  );
  job = await followJob({ ...ids, ingestionJobId: job.ingestionJobId });
  return report(job, ids);
}

async function readStackOutputs(): Promise<Record<string, string>> {
  const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stackName }));
  return Object.fromEntries(
    (Stacks?.[0]?.Outputs ?? []).map((output) => [
      output.OutputKey ?? '',
      output.OutputValue ?? '',
    ]),
  );
}

interface DataSourceIds {
  readonly knowledgeBaseId: string;
  readonly dataSourceId: string;
}

async function latestJob(ids: DataSourceIds) {
  const { ingestionJobSummaries } = await bedrockAgent.send(
    new ListIngestionJobsCommand({
      ...ids,
      sortBy: { attribute: 'STARTED_AT', order: 'DESCENDING' },
      maxResults: 1,
    }),
  );
  return ingestionJobSummaries?.[0];
}

async function startOrAttach(ids: DataSourceIds) {
  try {
    const { ingestionJob } = await bedrockAgent.send(
      new StartIngestionJobCommand({ ...ids, description: 'npm run ingest' }),
    );
    return ingestionJob;
  } catch (error) {
    // Another job started in between (one runs per data source): follow that one.
    if (error instanceof ConflictException) return latestJob(ids);
    throw error;
  }
}

async function followJob(ids: DataSourceIds & { ingestionJobId: string }): Promise<IngestionJob> {
  let previous = '';
  for (;;) {
    const { ingestionJob } = await bedrockAgent.send(new GetIngestionJobCommand(ids));
    if (!ingestionJob) throw new Error(`Ingestion job ${ids.ingestionJobId} not found`);
    const line = `  ${ingestionJob.status} ${formatStatistics(ingestionJob)}`;
    if (line !== previous) console.log(line);
    previous = line;
    if (!runningStatuses.has(ingestionJob.status ?? '')) return ingestionJob;
    await new Promise((resolve) => setTimeout(resolve, pollMilliseconds));
  }
}

function formatStatistics(job: IngestionJob): string {
  const s = job.statistics ?? {};
  return [
    `scanned ${s.numberOfDocumentsScanned ?? 0}`,
    `new ${s.numberOfNewDocumentsIndexed ?? 0}`,
    `modified ${s.numberOfModifiedDocumentsIndexed ?? 0}`,
    `deleted ${s.numberOfDocumentsDeleted ?? 0}`,
    `failed ${s.numberOfDocumentsFailed ?? 0}`,
  ].join(', ');
}

const failedDocumentStatuses = new Set([
  'FAILED',
  'PARTIALLY_INDEXED',
  'METADATA_PARTIALLY_INDEXED',
  'METADATA_UPDATE_FAILED',
]);

async function report(job: IngestionJob, ids: DataSourceIds): Promise<number> {
  for (const reason of job.failureReasons ?? []) console.log(`  reason: ${reason}`);
  const failedCount = job.statistics?.numberOfDocumentsFailed ?? 0;
  if (job.status === 'COMPLETE' && failedCount === 0) {
    console.log(`OK: every document is indexed (${formatStatistics(job)}).`);
    return 0;
  }
  if (failedCount > 0 || job.status === 'COMPLETE') {
    let nextToken: string | undefined;
    do {
      const page = await bedrockAgent.send(
        new ListKnowledgeBaseDocumentsCommand({ ...ids, nextToken, maxResults: 100 }),
      );
      for (const document of page.documentDetails ?? []) {
        if (!failedDocumentStatuses.has(document.status ?? '')) continue;
        const uri = document.identifier?.s3?.uri ?? document.identifier?.custom?.id ?? '?';
        console.log(`  ${document.status} ${uri}: ${document.statusReason ?? ''}`);
      }
      nextToken = page.nextToken;
    } while (nextToken);
  }
  console.error(
    `FAILED: ingestion job ${job.ingestionJobId} ended ${job.status} with ${failedCount} ` +
      'failed document(s); answers miss what is not indexed. Fix the documents (see above) ' +
      'and run npm run ingest again.',
  );
  return 1;
}

try {
  process.exitCode = await main();
} catch (error) {
  const name = (error as { name?: string }).name ?? '';
  if (name === 'CredentialsProviderError' || name === 'ExpiredTokenException') {
    console.error(
      'SKIPPED: no usable AWS credentials, so the ingestion job cannot be checked. Set ' +
        'AWS_PROFILE (or the AWS_* variables) for the account of the stack and run npm run ingest.',
    );
    process.exitCode = 2;
  } else if (name === 'ValidationError' && String(error).includes('does not exist')) {
    console.error(`SKIPPED: stack ${stackName} does not exist in ${region}; deploy it first.`);
    process.exitCode = 2;
  } else {
    console.error(`FAILED: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
