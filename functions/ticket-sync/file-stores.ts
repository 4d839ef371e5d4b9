import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { ticketDocumentNames } from '../knowledge/ticket-document.js';
import { type FolderSnapshot, StagedTicketFolder } from '../ticket-import/staged-ticket-folder.js';
import type { CursorStore, SyncRunStatus } from './cursor-store.js';
import { parseSyncCursor, type SyncCursor } from './sync-cursor.js';
import type {
  DocumentChanges,
  StoredTickets,
  TicketDocumentStore,
} from './ticket-document-store.js';
import type { SyncSystem } from './ticket-source.js';

/**
 * The command line's stores: the `--out` folder with the import's manifest, and the cursors in a
 * dot-file beside it (`tickets/` → `.tickets.sync.json`), so removing the folder starts over.
 */

/** The cursor file of an output folder. */
export function cursorFileOf(outDir: string): string {
  const absolute = resolve(outDir);
  return join(dirname(absolute), `.${basename(absolute)}.sync.json`);
}

interface CursorFile {
  readonly version: 1;
  readonly cursors: Record<string, SyncCursor>;
  readonly runs: Record<string, SyncRunStatus>;
}

export class FileCursorStore implements CursorStore {
  readonly #file: string;

  constructor(file: string) {
    this.#file = file;
  }

  async load(sourceKey: string): Promise<SyncCursor | undefined> {
    const cursor = this.#read().cursors[sourceKey];
    if (cursor === undefined) return undefined;
    try {
      return parseSyncCursor(cursor);
    } catch (error) {
      throw new Error(`${this.#file}: ${(error as Error).message}`);
    }
  }

  async save(sourceKey: string, cursor: SyncCursor): Promise<void> {
    const file = this.#read();
    this.#write({ ...file, cursors: { ...file.cursors, [sourceKey]: cursor } });
  }

  async recordRun(status: SyncRunStatus): Promise<void> {
    const file = this.#read();
    const before = file.runs[status.sourceKey];
    const lastSuccessAt =
      status.outcome === 'complete'
        ? status.endedAt
        : (status.lastSuccessAt ?? before?.lastSuccessAt);
    this.#write({
      ...file,
      runs: {
        ...file.runs,
        [status.sourceKey]: {
          ...status,
          ...(lastSuccessAt ? { lastSuccessAt } : {}),
          ...(status.newestChange || before?.newestChange
            ? { newestChange: status.newestChange ?? before?.newestChange }
            : {}),
        },
      },
    });
  }

  async status(): Promise<readonly SyncRunStatus[]> {
    return Object.values(this.#read().runs);
  }

  #read(): CursorFile {
    if (!existsSync(this.#file)) return { version: 1, cursors: {}, runs: {} };
    const parsed = JSON.parse(readFileSync(this.#file, 'utf8')) as Partial<CursorFile>;
    if (parsed.version !== 1 || typeof parsed.cursors !== 'object') {
      throw new Error(
        `${this.#file}: not a sync cursor file of this version; remove it to start over`,
      );
    }
    return { version: 1, cursors: parsed.cursors ?? {}, runs: parsed.runs ?? {} };
  }

  /** Whole, then renamed: a crash leaves the old cursors or the new ones. */
  #write(file: CursorFile): void {
    mkdirSync(dirname(this.#file), { recursive: true });
    const temporary = `${this.#file}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(file, null, 1)}\n`);
    renameSync(temporary, this.#file);
  }
}

/**
 * The `--out` folder, written page by page through the import's staged folder and manifest. The
 * manifest and the folder's listing are read once per run and then kept as each page's commit
 * leaves them: re-read per page, they cost memory and time that grow with every ticket written
 * (bench/servicenow-pull.ts). The run must be the folder's only writer, as an import is.
 */
export class FileTicketDocumentStore implements TicketDocumentStore {
  readonly #outDir: string;
  readonly #system: SyncSystem;
  #known: FolderSnapshot | undefined;

  constructor(outDir: string, system: SyncSystem) {
    this.#outDir = outDir;
    this.#system = system;
  }

  async load(): Promise<StoredTickets> {
    const folder = StagedTicketFolder.open({
      outDir: this.#outDir,
      source: this.#system,
      write: false,
      ...(this.#known && { known: this.#known }),
    });
    const known = folder.snapshot();
    this.#known = known;
    return {
      hashes: new Map(Object.entries(folder.previous)),
      // Asked of the folder as the pages written since left it: a ticket this run wrote is its own.
      isTakenByAnother: (issueId, documentName) =>
        StagedTicketFolder.isTakenInSnapshot(
          this.#known ?? known,
          this.#system,
          issueId,
          documentName,
        ),
    };
  }

  async apply(changes: DocumentChanges): Promise<void> {
    if (changes.written.length === 0 && changes.removed.length === 0) return;
    const folder = StagedTicketFolder.open({
      outDir: this.#outDir,
      source: this.#system,
      write: true,
      ...(this.#known && { known: this.#known }),
    });
    try {
      const writtenNames: string[] = [];
      for (const write of changes.written) {
        folder.stage(write.documentName, write.document);
        folder.stage(write.sidecarName, write.sidecar);
        writtenNames.push(write.documentName, write.sidecarName);
      }
      folder.commit({
        hashes: Object.fromEntries(changes.written.map((write) => [write.issueId, write.hash])),
        writtenNames,
        removedNames: changes.removed.flatMap((id) => {
          const names = ticketDocumentNames(id);
          return [names.documentName, names.sidecarName];
        }),
        prune: false,
        forgotten: changes.removed,
      });
      this.#known = folder.snapshot();
    } finally {
      folder.discard();
    }
  }
}
