import type { SourceName } from '../../../functions/ticket-import/imported-ticket.js';
import { runImport } from '../../../functions/ticket-import/run-import.js';
import {
  createTicketSource,
  type TicketSourceSettings,
} from '../../../functions/ticket-sync/create-ticket-source.js';
import { sourceKeyOf } from '../../../functions/ticket-sync/cursor-store.js';
import {
  cursorFileOf,
  FileCursorStore,
  FileTicketDocumentStore,
} from '../../../functions/ticket-sync/file-stores.js';
import { runSync, type SyncRunReport } from '../../../functions/ticket-sync/run-sync.js';
import { initialCursor } from '../../../functions/ticket-sync/sync-cursor.js';
import type { TicketSource } from '../../../functions/ticket-sync/ticket-source.js';

/**
 * A sync run against a local server with the command line's file stores, the sleeps recorded
 * instead of spent (a `Retry-After: 2` asks for 2,000 ms and the test reads that it did).
 */
export interface SyncHarness {
  readonly sleeps: number[];
  readonly outDir: string;
  source(): TicketSource;
  run(options?: { readonly signal?: AbortSignal }): Promise<SyncRunReport>;
}

export function syncHarness(
  settings: Omit<TicketSourceSettings, 'credentialSource' | 'comments'> & {
    readonly comments?: TicketSourceSettings['comments'];
  },
  outDir: string,
): SyncHarness {
  const sleeps: number[] = [];
  const source = () =>
    createTicketSource(
      {
        comments: settings.system === 'servicenow' ? 'none' : 'public',
        credentialSource: `${settings.system.toUpperCase()} test credentials`,
        ...settings,
      },
      {
        fetch,
        sleep: async (milliseconds) => {
          sleeps.push(milliseconds);
        },
        now: () => Date.now(),
        maxAttempts: 3,
        backoffMilliseconds: 10,
      },
    );
  return {
    sleeps,
    outDir,
    source,
    run: async (options = {}) =>
      runSync({
        sourceKey: sourceKeyOf(settings.system, settings.url),
        source: source(),
        cursors: new FileCursorStore(cursorFileOf(outDir)),
        documents: new FileTicketDocumentStore(outDir, settings.system),
        settings: { system: settings.system, rules: [] },
        firstCursor: initialCursor({}),
        signal: options.signal ?? new AbortController().signal,
      }),
  };
}

/** The file import of export files into a folder, with the defaults the command line uses. */
export async function importFiles(source: SourceName, paths: readonly string[], outDir: string) {
  return runImport({ source, paths, outDir, nameAnalyzer: false });
}
