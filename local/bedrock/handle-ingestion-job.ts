import { randomInt } from 'node:crypto';
import { readJsonBody, sendAwsError } from './aws-json-protocol.js';
import type { IngestionStatistics, KnowledgeBaseDataSource } from './knowledge-base-data-source.js';
import type { LocalRequest, LocalResponse } from './listen-h2c-and-http1.js';

/** An ingestion job in the Bedrock Agent API's `IngestionJob` shape (timestamps as ISO 8601). */
export interface IngestionJob {
  readonly knowledgeBaseId: string;
  readonly dataSourceId: string;
  readonly ingestionJobId: string;
  readonly description?: string;
  readonly status: 'COMPLETE';
  readonly statistics: IngestionStatistics;
  readonly failureReasons?: readonly string[];
  readonly startedAt: string;
  readonly updatedAt: string;
}

/** A StartIngestionJob call as the local endpoint received it, and the job it answered with. */
export interface RecordedIngestionJob {
  readonly knowledgeBaseId: string;
  readonly dataSourceId: string;
  readonly body: { readonly clientToken?: string; readonly description?: string };
  /** Undefined when the call was refused (unknown Knowledge Base or data source). */
  readonly job?: IngestionJob;
}

export interface IngestionJobContext {
  readonly knowledgeBaseId: string;
  readonly dataSourceId: string;
  readonly dataSource: KnowledgeBaseDataSource;
  /** Every job started, by id (GetIngestionJob). */
  readonly jobs: Map<string, IngestionJob>;
  readonly record: (recorded: RecordedIngestionJob) => void;
}

const JOB_ID_CHARACTERS = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/**
 * `PUT /knowledgebases/{kbId}/datasources/{dsId}/ingestionjobs/` (StartIngestionJob, 202). A
 * real job starts as `STARTING` and finishes minutes later; here the data source is re-read and
 * the new index swapped in before the answer, which is the job already `COMPLETE` with its
 * statistics — so a test or `npm start` finds a published ticket with the next Retrieve. The same
 * `clientToken` returns the same job (the API's idempotency). Real Bedrock refuses a start while
 * a job of the data source runs (ConflictException); here jobs run one after another instead.
 */
export async function handleStartIngestionJob(
  request: LocalRequest,
  response: LocalResponse,
  path: { readonly knowledgeBaseId: string; readonly dataSourceId: string },
  context: IngestionJobContext,
): Promise<void> {
  const body = await readJsonBody<RecordedIngestionJob['body']>(request, response);
  if (body === undefined) return;
  if (!isKnownDataSource(response, path, context)) {
    context.record({ ...path, body });
    return;
  }
  const repeated = [...context.jobs.values()].find(
    (job) => body.clientToken !== undefined && tokens.get(job) === body.clientToken,
  );
  const job = repeated ?? (await runJob(path, body, context));
  context.record({ ...path, body, job });
  sendJson(response, 202, { ingestionJob: job });
}

/** `GET /knowledgebases/{kbId}/datasources/{dsId}/ingestionjobs/{jobId}` (GetIngestionJob). */
export function handleGetIngestionJob(
  response: LocalResponse,
  path: {
    readonly knowledgeBaseId: string;
    readonly dataSourceId: string;
    readonly ingestionJobId: string;
  },
  context: IngestionJobContext,
): void {
  if (!isKnownDataSource(response, path, context)) return;
  const job = context.jobs.get(path.ingestionJobId);
  if (job === undefined) {
    sendAwsError(response, {
      statusCode: 404,
      type: 'ResourceNotFoundException',
      message: `Ingestion job ${path.ingestionJobId} does not exist for data source ${path.dataSourceId}.`,
    });
    return;
  }
  sendJson(response, 200, { ingestionJob: job });
}

/** The client token each job was started with (the idempotency key), kept off the job itself. */
const tokens = new WeakMap<IngestionJob, string>();

async function runJob(
  path: { readonly knowledgeBaseId: string; readonly dataSourceId: string },
  body: RecordedIngestionJob['body'],
  context: IngestionJobContext,
): Promise<IngestionJob> {
  const startedAt = new Date().toISOString();
  const { statistics, failureReasons } = await context.dataSource.sync();
  const job: IngestionJob = {
    ...path,
    ingestionJobId: Array.from(
      { length: 10 },
      () => JOB_ID_CHARACTERS[randomInt(JOB_ID_CHARACTERS.length)],
    ).join(''),
    ...(body.description !== undefined ? { description: body.description } : {}),
    status: 'COMPLETE',
    statistics,
    ...(failureReasons.length > 0 ? { failureReasons } : {}),
    startedAt,
    updatedAt: new Date().toISOString(),
  };
  if (body.clientToken !== undefined) tokens.set(job, body.clientToken);
  context.jobs.set(job.ingestionJobId, job);
  return job;
}

/** True for the served Knowledge Base and data source; otherwise answers ResourceNotFoundException. */
function isKnownDataSource(
  response: LocalResponse,
  path: { readonly knowledgeBaseId: string; readonly dataSourceId: string },
  context: IngestionJobContext,
): boolean {
  if (path.knowledgeBaseId !== context.knowledgeBaseId) {
    sendAwsError(response, {
      statusCode: 404,
      type: 'ResourceNotFoundException',
      message: `Knowledge base ${path.knowledgeBaseId} does not exist (the local endpoint serves ${context.knowledgeBaseId}).`,
    });
    return false;
  }
  if (path.dataSourceId !== context.dataSourceId) {
    sendAwsError(response, {
      statusCode: 404,
      type: 'ResourceNotFoundException',
      message: `Data source ${path.dataSourceId} does not exist in knowledge base ${path.knowledgeBaseId} (the local one is ${context.dataSourceId}).`,
    });
    return false;
  }
  return true;
}

function sendJson(response: LocalResponse, statusCode: number, value: unknown): void {
  const payload = JSON.stringify(value);
  response.writeHead(statusCode, {
    'content-type': 'application/json',
    'x-amzn-requestid': crypto.randomUUID(),
    'content-length': String(Buffer.byteLength(payload)),
  });
  response.end(payload);
}
