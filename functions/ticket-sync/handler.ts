import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { BedrockAgentClient } from '@aws-sdk/client-bedrock-agent';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Context } from 'aws-lambda';
import * as z from 'zod';
import { createKnowledgeBaseDocuments } from '../adapters/bedrock/knowledge-base-documents.js';
import { createSyncBacklog } from '../adapters/dynamodb/sync-backlog.js';
import {
  createKnowledgeBaseTicketStore,
  createTicketSyncCursorStore,
} from '../adapters/dynamodb/ticket-sync-store.js';
import { readSecretString, SecretReadError } from '../adapters/secrets/secrets-manager-secret.js';
import { loadPersonNameAnalyzer } from '../knowledge/person-name-analyzer.js';
import { parseScrubSettings } from '../knowledge/personal-data-scrub.js';
import {
  METRICS_NAMESPACE,
  METRICS_SERVICE,
  ticketSyncMetrics,
} from '../observability/metric-catalog.js';
import { MalformedRecordError, ticketIdOf } from '../ticket-import/imported-ticket.js';
import { parseRestrictionRule } from '../ticket-import/ticket-conversion.js';
import { abortableSleep, createTicketSource } from './create-ticket-source.js';
import { sourceKeyOf } from './cursor-store.js';
import { type DeployedSyncResult, runDeployedSync } from './deployed-sync.js';
import {
  credentialsFromEnvironment,
  describeCredentialVariables,
  SourceAuthError,
} from './source-http.js';
import { initialCursor } from './sync-cursor.js';
import { parseTicketSyncSource, type TicketSyncSource } from './sync-source-settings.js';
import { type DeployedSyncStatus, lagSeconds, type SyncMode } from './sync-status.js';

/**
 * One `ticketSync` source's scheduled function (lib/constructs/ticket-sync.ts, ADR 0032): wiring
 * only. The schedule's event says `pull` (what changed) or `reconcile` (ids the system no longer
 * has); the credentials are read from the source's secret at every run, so a rotated secret
 * needs no deploy. Each run ends with one log line and its metrics.
 */

const environment = z
  .object({
    TICKET_SYNC_TABLE: z.string().min(1),
    KNOWLEDGE_BUCKET: z.string().min(1),
    KNOWLEDGE_KEY_PREFIX: z.string().regex(/^tickets\/imported\/[a-z][a-z0-9-]*\/$/),
    KNOWLEDGE_BASE_ID: z.string().min(1),
    KNOWLEDGE_DATA_SOURCE_ID: z.string().min(1),
    TURNS_TABLE: z.string().min(1),
    PERSONAL_DATA_SETTINGS: z.string().optional(),
    AWS_REGION: z.string().min(1).default('us-east-1'),
    AWS_ACCESS_KEY_ID: z.string().default(''),
    AWS_SECRET_ACCESS_KEY: z.string().default(''),
    AWS_SESSION_TOKEN: z.string().optional(),
    /** Local endpoints (tests); unset in AWS. */
    DYNAMODB_ENDPOINT: z.url().optional(),
    S3_ENDPOINT: z.url().optional(),
    BEDROCK_AGENT_ENDPOINT: z.url().optional(),
    SECRETS_MANAGER_ENDPOINT: z.url().optional(),
  })
  .parse(process.env);
const source = parseTicketSyncSource(process.env.TICKET_SYNC_SOURCE);
const scrubSettings = environment.PERSONAL_DATA_SETTINGS
  ? parseScrubSettings(JSON.parse(environment.PERSONAL_DATA_SETTINGS))
  : undefined;
const rules = source.restrictedWhen.map(parseRestrictionRule);

/** The run stops taking pages this long before Lambda's limit: a page's fetch and writes fit in it. */
const STOP_MARGIN_MS = 120_000;

const logger = new Logger({ serviceName: 'service-desk-ticket-sync' });
const table = {
  documents: DynamoDBDocumentClient.from(
    new DynamoDBClient({ endpoint: environment.DYNAMODB_ENDPOINT }),
  ),
  tableName: environment.TICKET_SYNC_TABLE,
};
const knowledgeBase = createKnowledgeBaseDocuments({
  s3: new S3Client({
    endpoint: environment.S3_ENDPOINT,
    forcePathStyle: environment.S3_ENDPOINT !== undefined,
  }),
  agent: new BedrockAgentClient({ endpoint: environment.BEDROCK_AGENT_ENDPOINT }),
  bucket: environment.KNOWLEDGE_BUCKET,
  keyPrefix: environment.KNOWLEDGE_KEY_PREFIX,
  knowledgeBaseId: environment.KNOWLEDGE_BASE_ID,
  dataSourceId: environment.KNOWLEDGE_DATA_SOURCE_ID,
  syncDescription: `Ticket sync of ${source.id}`,
});
const syncBacklog = createSyncBacklog({
  documents: table.documents,
  tables: { turns: environment.TURNS_TABLE },
});

export async function handler(
  event: { readonly mode?: SyncMode },
  context: Pick<Context, 'awsRequestId' | 'getRemainingTimeInMillis'>,
): Promise<DeployedSyncResult> {
  const mode: SyncMode = event?.mode === 'reconcile' ? 'reconcile' : 'pull';
  const cursors = createTicketSyncCursorStore(table, {
    sourceId: source.id,
    holder: context.awsRequestId,
  });
  try {
    const credentials = await readCredentials(source);
    const result = await runDeployedSync({
      mode,
      sourceKey: sourceKeyOf(source.system, source.url, scopeOf(source)),
      source: createTicketSource(
        {
          system: source.system,
          url: source.url,
          credentials,
          credentialSource: `the secret ${source.secret} (Secrets Manager)`,
          comments: source.comments,
          ...(source.system === 'servicenow' && { tables: source.filters.tables }),
          ...(source.system === 'jira' && {
            ...(source.filters.jql && { jql: source.filters.jql }),
            ...(source.filters.deployment && { jiraDeployment: source.filters.deployment }),
          }),
        },
        { fetch, sleep: abortableSleep, now: Date.now },
      ),
      settings: {
        system: source.system,
        rules,
        ...(scrubSettings && { scrubSettings }),
        analyzer: await loadPersonNameAnalyzer(),
      },
      firstCursor: initialCursor({}),
      cursors,
      documents: createKnowledgeBaseTicketStore(table, { sourceId: source.id, knowledgeBase }),
      knowledgeBase,
      syncBacklog,
      ticketIdOf: (number) => {
        try {
          return ticketIdOf(source.system, number);
        } catch (error) {
          if (error instanceof MalformedRecordError) return undefined;
          throw error;
        }
      },
      now: () => new Date(),
      remainingMs: () => context.getRemainingTimeInMillis(),
      stopMarginMs: STOP_MARGIN_MS,
    });
    report(result, result.status);
    return result;
  } catch (error) {
    const [status] = (await cursors.status().catch(() => [])) as DeployedSyncStatus[];
    publishFailure(error, status);
    logger.error('ticket sync failed', {
      source: source.id,
      system: source.system,
      mode,
      error: (error as Error).message,
    });
    throw error;
  }
}

/**
 * The source's credentials from its secret: JSON with the command line's variable names
 * (`SERVICENOW_USERNAME` and `SERVICENOW_PASSWORD`, or `SERVICENOW_TOKEN`; docs/deploy.md).
 * A secret that cannot be read, or holds neither, is refused like a 401: nothing is written.
 */
async function readCredentials(entry: TicketSyncSource) {
  let text: string;
  try {
    text = await readSecretString(
      {
        region: environment.AWS_REGION,
        credentials: {
          accessKeyId: environment.AWS_ACCESS_KEY_ID,
          secretAccessKey: environment.AWS_SECRET_ACCESS_KEY,
          sessionToken: environment.AWS_SESSION_TOKEN,
        },
        endpoint: environment.SECRETS_MANAGER_ENDPOINT,
        fetch,
      },
      entry.secret,
    );
  } catch (error) {
    if (!(error instanceof SecretReadError)) throw error;
    throw new SourceAuthError(`${entry.id}: ${error.message}. Nothing was written.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const values =
    json && typeof json === 'object' && !Array.isArray(json)
      ? Object.fromEntries(
          Object.entries(json).filter(
            (pair): pair is [string, string] => typeof pair[1] === 'string',
          ),
        )
      : {};
  const credentials = credentialsFromEnvironment(entry.system, values);
  if (!credentials) {
    throw new SourceAuthError(
      `${entry.id}: the secret ${entry.secret} must be JSON with ${describeCredentialVariables(entry.system)} (docs/deploy.md, "Live ticket sync"). Nothing was written.`,
    );
  }
  return credentials;
}

/** What makes the source's cursor its own: the ServiceNow tables, the Jira query. */
function scopeOf(entry: TicketSyncSource): string[] {
  if (entry.system === 'servicenow') return [...entry.filters.tables];
  if (entry.system === 'jira' && entry.filters.jql) return [entry.filters.jql];
  return [];
}

/** The run's log line and metrics (counts only: no ticket text, no names). */
function report(result: DeployedSyncResult, status: DeployedSyncStatus | undefined): void {
  const now = new Date();
  const lag = lagSeconds(status, now);
  logger.info('ticket sync', {
    source: source.id,
    system: source.system,
    mode: result.mode,
    outcome: result.outcome,
    pages: result.pages,
    ...result.counts,
    ingestion: result.ingestion,
    ...(lag !== undefined && { lagSeconds: lag }),
  });
  if (result.outcome === 'busy') return;
  const metrics = sourceMetrics();
  const { counts } = result;
  metrics.addMetric(ticketSyncMetrics.added.name, MetricUnit.Count, counts.added);
  metrics.addMetric(ticketSyncMetrics.changed.name, MetricUnit.Count, counts.changed);
  metrics.addMetric(ticketSyncMetrics.removed.name, MetricUnit.Count, counts.removed);
  metrics.addMetric(ticketSyncMetrics.unchanged.name, MetricUnit.Count, counts.unchanged);
  publishFreshness(metrics, status, now);
  metrics.publishStoredMetrics();
  for (const [reason, count] of Object.entries(counts.skipped)) {
    if (count > 0) publishWith('reason', reason, ticketSyncMetrics.skipped.name, count);
  }
  for (const [kind, count] of Object.entries(counts.scrubbed)) {
    if (count > 0) publishWith('kind', kind, ticketSyncMetrics.personalDataReplaced.name, count);
  }
}

function publishFailure(error: unknown, status: DeployedSyncStatus | undefined): void {
  const metrics = sourceMetrics();
  metrics.addMetric(ticketSyncMetrics.failures.name, MetricUnit.Count, 1);
  if (error instanceof SourceAuthError) {
    metrics.addMetric(ticketSyncMetrics.authFailures.name, MetricUnit.Count, 1);
  }
  publishFreshness(metrics, status, new Date());
  metrics.publishStoredMetrics();
}

/** The lag and the time since the last success, on every run: a failing source's lag still grows. */
function publishFreshness(
  metrics: Metrics,
  status: DeployedSyncStatus | undefined,
  now: Date,
): void {
  const lag = lagSeconds(status, now);
  if (lag !== undefined) metrics.addMetric(ticketSyncMetrics.lag.name, MetricUnit.Seconds, lag);
  if (status?.lastSuccessAt) {
    const seconds = Math.round((now.getTime() - Date.parse(status.lastSuccessAt)) / 1000);
    metrics.addMetric(
      ticketSyncMetrics.secondsSinceSuccess.name,
      MetricUnit.Seconds,
      Math.max(0, seconds),
    );
  }
}

function sourceMetrics(): Metrics {
  const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: METRICS_SERVICE });
  metrics.addDimension('source', source.id);
  return metrics;
}

function publishWith(dimension: string, value: string, name: string, count: number): void {
  const metrics = sourceMetrics();
  metrics.addDimension(dimension, value);
  metrics.addMetric(name, MetricUnit.Count, count);
  metrics.publishStoredMetrics();
}
