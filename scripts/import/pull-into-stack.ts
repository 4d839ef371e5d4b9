import type { BedrockAgentClient } from '@aws-sdk/client-bedrock-agent';
import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createKnowledgeBaseDocuments } from '../../functions/adapters/bedrock/knowledge-base-documents.js';
import { createSyncBacklog } from '../../functions/adapters/dynamodb/sync-backlog.js';
import {
  createKnowledgeBaseTicketStore,
  createTicketSyncCursorStore,
} from '../../functions/adapters/dynamodb/ticket-sync-store.js';
import { ticketIdOf } from '../../functions/ticket-import/imported-ticket.js';
import {
  parseDeskRule,
  parseRestrictionRule,
} from '../../functions/ticket-import/ticket-conversion.js';
import {
  type DeployedSyncResult,
  runDeployedSync,
} from '../../functions/ticket-sync/deployed-sync.js';
import {
  SourceAuthError,
  SourceRequestError,
  SourceUnavailableError,
} from '../../functions/ticket-sync/source-http.js';
import { initialCursor } from '../../functions/ticket-sync/sync-cursor.js';
import { LeaseLostError, type SyncMode } from '../../functions/ticket-sync/sync-status.js';
import { stackOutputNames, syncedTicketsKeyPrefix } from '../../lib/deployed-stack-names.js';
import { type DeployedStack, requireOutput } from '../deployed-stack.js';
import {
  openPullSource,
  type PullIo,
  type PullSourceOptions,
  printSkipsAndScrub,
} from './pull-tickets.js';

/**
 * `npm run import -- --from servicenow|jira|zendesk --url https://… --upload`: the pull of
 * pull-tickets.ts into the deployed stack, through the stack's own ticket-sync adapters — the
 * documents into the Knowledge Base bucket under `tickets/imported/<system>/` (the folder the
 * file import's `--upload` fills), the cursor, the content hashes and the lease into the
 * TicketSync table (`runDeployedSync`, ADR 0032) — then one ingestion job, as the file import's
 * `--upload` starts it. A `ticketSync` source of the same id shares the partition: the lease keeps
 * the command and the scheduled function from running at once, and neither writes a ticket the
 * other already wrote unchanged.
 */

/** Where in the deployed stack the pull goes, from its outputs. */
export interface StackTarget {
  readonly stackName: string;
  readonly bucket: string;
  readonly ticketSyncTable: string;
  readonly turnsTable: string;
  readonly knowledgeBaseId: string;
  readonly dataSourceId: string;
}

/** The stack's outputs the pull needs; an error naming the stack and what is missing. */
export function stackTargetOf(stack: DeployedStack): StackTarget {
  const ticketSyncTable = stack.outputs[stackOutputNames.ticketSyncTable];
  if (!ticketSyncTable) {
    throw new Error(
      `stack ${stack.stackName} (${stack.region}) has no TicketSync table, where --url --upload keeps its cursor: ` +
        'deploy with a ticketSync entry (docs/deploy.md, "Live ticket sync"), or pull into --out <folder>',
    );
  }
  return {
    stackName: stack.stackName,
    bucket: requireOutput(stack, stackOutputNames.documentBucket),
    ticketSyncTable,
    turnsTable: requireOutput(stack, stackOutputNames.turnsTable),
    knowledgeBaseId: requireOutput(stack, stackOutputNames.knowledgeBaseId),
    dataSourceId: requireOutput(stack, stackOutputNames.dataSourceId),
  };
}

export interface PullIntoStackOptions extends PullSourceOptions {
  readonly reconcile: boolean;
}

export interface PullIntoStackIo
  extends Pick<PullIo, 'env' | 'runtime' | 'signal' | 'log' | 'error'> {
  readonly target: StackTarget;
  /** Clients for the stack's account and region. */
  readonly clients: {
    readonly s3: S3Client;
    readonly documents: DynamoDBDocumentClient;
    readonly agent: BedrockAgentClient;
  };
  /** This run's name on the lease (a random id). */
  readonly holder: string;
  readonly now: () => Date;
}

/** Runs one pull (and reconciliation); resolves to the exit code as `pullTickets` does. */
export async function pullIntoStack(
  options: PullIntoStackOptions,
  io: PullIntoStackIo,
): Promise<number> {
  const opened = openPullSource(options, io);
  if (!opened) return 2;
  const { target } = io;
  // The file import's folder for this system: an import and a pull never hold a ticket twice.
  const sourceId = options.system;
  const table = { documents: io.clients.documents, tableName: target.ticketSyncTable };
  const knowledgeBase = createKnowledgeBaseDocuments({
    s3: io.clients.s3,
    agent: io.clients.agent,
    bucket: target.bucket,
    keyPrefix: syncedTicketsKeyPrefix(sourceId),
    knowledgeBaseId: target.knowledgeBaseId,
    dataSourceId: target.dataSourceId,
    syncDescription: 'npm run import',
    // One try, as the file import's --upload: a running job leaves the sync owed (below).
    syncRetryDelaysMs: [],
  });
  const run = (mode: SyncMode) =>
    runDeployedSync({
      mode,
      sourceKey: opened.sourceKey,
      source: opened.source,
      settings: {
        system: options.system,
        rules: options.restrictedWhen.map(parseRestrictionRule),
        deskRules: (options.deskWhen ?? []).map(parseDeskRule),
        ...(options.scrubSettings && { scrubSettings: options.scrubSettings }),
        ...(options.analyzer && { analyzer: options.analyzer }),
      },
      firstCursor: initialCursor(options.since ? { since: options.since } : {}),
      cursors: createTicketSyncCursorStore(table, { sourceId, holder: io.holder }),
      documents: createKnowledgeBaseTicketStore(table, { sourceId, knowledgeBase }),
      knowledgeBase,
      syncBacklog: createSyncBacklog({
        documents: io.clients.documents,
        tables: { turns: target.turnsTable },
      }),
      ticketIdOf: (number) => {
        try {
          return ticketIdOf(options.system, number);
        } catch {
          return undefined;
        }
      },
      now: io.now,
      remainingMs: () => Number.POSITIVE_INFINITY,
      stopMarginMs: 0,
      signal: io.signal,
    });

  const where = `s3://${target.bucket}/${syncedTicketsKeyPrefix(sourceId)}`;
  try {
    const pulled = await run('pull');
    if (pulled.outcome === 'busy') return busy(sourceId, io);
    const { counts } = pulled;
    io.log(
      `${counts.records} changed record(s) pulled from ${opened.sourceKey} in ${pulled.pages} page(s). Tickets: ` +
        `${counts.added} new, ${counts.changed} changed (written), ${counts.unchanged} unchanged in ${where}; ` +
        `${counts.removed} removed (reopened, merged or deleted).`,
    );
    if (pulled.outcome === 'stopped') {
      io.log('Stopped before the end: the next run resumes where this one stopped.');
    }
    printSkipsAndScrub(counts, io.log);
    let ingestion = pulled.ingestion;
    if (options.reconcile && pulled.outcome === 'complete') {
      const reconciled = await run('reconcile');
      if (reconciled.outcome === 'busy') return busy(sourceId, io);
      io.log(
        opened.source.listIds
          ? `Reconciliation: ${reconciled.counts.removed} removed (no longer in ${options.system}).`
          : 'Reconciliation: not needed, the export reports deletions.',
      );
      if (reconciled.ingestion !== 'none') ingestion = reconciled.ingestion;
    }
    io.log(
      `Cursor and content hashes in the stack's table ${target.ticketSyncTable} (source ${sourceId}).`,
    );
    printIngestion(ingestion, io.log);
    return 0;
  } catch (error) {
    const known =
      error instanceof SourceAuthError ||
      error instanceof SourceUnavailableError ||
      error instanceof SourceRequestError ||
      error instanceof LeaseLostError;
    if (!known) throw error;
    io.error(`FAILED: ${(error as Error).message}`);
    return 1;
  }
}

function busy(sourceId: string, io: Pick<PullIntoStackIo, 'error'>): number {
  io.error(
    `Another run holds the lease of source ${sourceId} (the stack's ticketSync function, or another import): nothing was pulled; run again when it ends.`,
  );
  return 1;
}

function printIngestion(ingestion: DeployedSyncResult['ingestion'], log: (line: string) => void) {
  if (ingestion === 'started') {
    log('Sync started; follow it with npm run ingest -- --latest.');
  } else if (ingestion === 'owed') {
    log(
      'A sync was already running: the stack starts one for these tickets when it ends (the sync catch-up, within minutes).',
    );
  } else {
    log('Nothing written: no sync started.');
  }
}
