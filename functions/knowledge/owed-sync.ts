import type { KnowledgeDocuments, SyncBacklog } from './ports.js';

/**
 * The sync a published ticket is owed (ADR 0011). A publish whose sync could not start — one
 * was running, which listed the bucket before the ticket was written — marks a sync as owed;
 * the sync catch-up, run on a schedule, starts it and clears the mark. One mark per deployment
 * (it has one data source): any later sync embeds every ticket written before it started.
 */

export type CatchUpOutcome =
  /** Nothing was owed: no Bedrock call was made. */
  | { readonly outcome: 'idle' }
  /** The owed sync started; the mark is cleared. */
  | { readonly outcome: 'started'; readonly pendingSince: string }
  /** A sync is still running: the mark stays for the next run. */
  | { readonly outcome: 'still_pending'; readonly pendingSince: string };

/**
 * One run of the sync catch-up: when a sync is owed, starts it; the mark is cleared only once a
 * job has started after it was read, so a ticket marked before the read is in that job, and one
 * marked after it keeps the mark for the next run.
 */
export async function catchUpKnowledgeSync(dependencies: {
  readonly syncBacklog: SyncBacklog;
  readonly documents: Pick<KnowledgeDocuments, 'startSync'>;
}): Promise<CatchUpOutcome> {
  const pending = await dependencies.syncBacklog.read();
  if (pending === undefined) return { outcome: 'idle' };
  const { pendingSince } = pending;
  if ((await dependencies.documents.startSync()) === 'pending') {
    return { outcome: 'still_pending', pendingSince };
  }
  await dependencies.syncBacklog.clear(pending);
  return { outcome: 'started', pendingSince };
}
