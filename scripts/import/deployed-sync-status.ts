import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { readTicketSyncStatuses } from '../../functions/adapters/dynamodb/ticket-sync-status.js';
import { type DeployedSyncStatus, lagSeconds } from '../../functions/ticket-sync/sync-status.js';
import { stackOutputNames } from '../../lib/deployed-stack-names.js';
import { readDeployedStack } from '../deployed-stack.js';

/**
 * `npm run import -- --status --target aws`: each `ticketSync` source of the deployed stack —
 * its last run, last successful sync, counts and lag — read from the stack's TicketSync table
 * (the stack's outputs name it and the sources). Throws `SkipError` without AWS credentials.
 */

export interface DeployedSyncSources {
  readonly stackName: string;
  /** Each configured source with its stored status (absent before its first run). */
  readonly sources: readonly { readonly id: string; readonly status?: DeployedSyncStatus }[];
}

export async function readDeployedSyncStatus(): Promise<DeployedSyncSources> {
  const stack = await readDeployedStack('IMPORT_STACK_NAME');
  const tableName = stack.outputs[stackOutputNames.ticketSyncTable];
  const ids = (stack.outputs[stackOutputNames.ticketSyncSources] ?? '').split(',').filter(Boolean);
  if (!tableName || ids.length === 0) return { stackName: stack.stackName, sources: [] };
  const client = new DynamoDBClient({ region: stack.region });
  try {
    const statuses = await readTicketSyncStatuses(
      { documents: DynamoDBDocumentClient.from(client), tableName },
      ids,
    );
    return {
      stackName: stack.stackName,
      sources: ids.map((id) => {
        const status = statuses.get(id);
        return status ? { id, status } : { id };
      }),
    };
  } finally {
    client.destroy();
  }
}

export function printDeployedSyncStatus(
  deployed: DeployedSyncSources,
  now: Date,
  log: (line: string) => void,
): void {
  if (deployed.sources.length === 0) {
    log(
      `Stack ${deployed.stackName} syncs no ticket system (the ticketSync deploy setting is empty).`,
    );
    return;
  }
  for (const { id, status } of deployed.sources) {
    if (!status) {
      log(`${id}: not run yet`);
      continue;
    }
    const lag = lagSeconds(status, now);
    log(`${id} (${status.sourceKey})`);
    log(
      `  last run ${status.endedAt} ${status.mode} ${status.outcome}${status.error ? ` (${status.error})` : ''}; last successful sync ${status.lastSuccessAt ?? 'never'}`,
    );
    const { counts } = status;
    log(
      `  ${counts.added} added, ${counts.changed} changed, ${counts.removed} removed, ${counts.unchanged} unchanged of ${counts.records} record(s) read`,
    );
    log(
      `  lag ${lag === undefined ? 'unknown' : `${Math.round(lag / 60)} min`} (fresh as of ${status.freshAsOf ?? 'never'}; newest change seen ${status.newestChange ?? 'none'})`,
    );
    const skips = Object.entries(counts.skipped).filter(([, count]) => count > 0);
    if (skips.length > 0) {
      log(`  skipped: ${skips.map(([reason, count]) => `${reason} ${count}`).join(', ')}`);
    }
    const scrubbed = Object.entries(counts.scrubbed).filter(([, count]) => count > 0);
    log(
      `  personal data replaced: ${scrubbed.length === 0 ? 'none found' : scrubbed.map(([kind, count]) => `${kind} ${count}`).join(', ')}`,
    );
  }
}
