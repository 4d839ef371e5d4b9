import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFile,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';

/**
 * The output ticket folder as an import writes it: the manifest of what earlier runs wrote
 * (content hash per ticket id, per source: incremental runs rewrite only changed tickets),
 * staging of the new and changed files, and the commit that puts them into place.
 *
 * Safety: every file is first written into a staging folder inside the output folder; only
 * {@link StagedTicketFolder.commit} renames the staged files into place, deletes the pruned
 * tickets and replaces the manifest. {@link StagedTicketFolder.discard} (a fatal error before the
 * commit) removes the staging folder, and the output folder too when this run created it, so
 * the folder is left as it was.
 *
 * Staged writes run a few at a time in the background (libuv's threadpool) while the import
 * reads and scrubs the next records; at most {@link WRITES_IN_FLIGHT} are pending at once, so
 * memory stays bounded however fast the reader is. They use `fs.writeFile`'s callback: measured
 * on 18,000 files, `fs/promises` cost twice its CPU (bench/README.md, import throughput).
 */

/** The manifest's file name in the output folder (hidden from the Knowledge Base: not `.md`). */
export const MANIFEST_NAME = '.import-manifest.json';
const MANIFEST_VERSION = 1;

/** Staged writes pending at once: enough to keep the threadpool's four threads busy. */
const WRITES_IN_FLIGHT = 16;

/** The import's record of what it wrote: content hash per ticket id, per source. */
interface Manifest {
  readonly version: typeof MANIFEST_VERSION;
  readonly sources: Record<string, Record<string, string>>;
}

/** A manifest that is not this version's: the message says how to start over. */
export class ManifestError extends Error {
  override readonly name = 'ManifestError';
}

/** What {@link StagedTicketFolder.commit} does with the tickets of this run. */
export interface CommitPlan {
  /** Content hash per ticket id of every ticket this run exported (written or unchanged). */
  readonly hashes: Readonly<Record<string, string>>;
  /** File names staged by {@link StagedTicketFolder.stage}, in order. */
  readonly writtenNames: readonly string[];
  /** File names to delete (`--prune`). */
  readonly removedNames: readonly string[];
  /** With `--prune` the manifest forgets tickets no longer exported; without, they stay the import's. */
  readonly prune: boolean;
}

/**
 * One run's view of the output folder (or of none, for a dry run without `--out`).
 *
 * @example
 * const folder = StagedTicketFolder.open({ outDir: 'tickets/', source: 'servicenow', write: true });
 * try {
 *   await folder.stage('INC0012345.md', document);
 *   await folder.commit({ hashes, writtenNames, removedNames: [], prune: false });
 * } finally {
 *   await folder.discard();
 * }
 */
export class StagedTicketFolder {
  /** Content hash per ticket id as the last run of this source recorded it. */
  readonly previous: Readonly<Record<string, string>>;
  readonly #outDir: string | undefined;
  readonly #source: string;
  readonly #manifest: Manifest;
  /** File names present in the output folder when the run began (one listing, not a stat per ticket). */
  readonly #present: ReadonlySet<string>;
  readonly #otherSources: readonly (readonly [string, Record<string, string>])[];
  readonly #staging: string | undefined;
  readonly #createdOutDir: boolean;
  #pending = 0;
  /** Resolves the waiter of {@link stage} or {@link #settle} when a write ends. */
  #onWriteEnd: (() => void) | undefined;
  #writeError: unknown;
  #committed = false;

  private constructor(outDir: string | undefined, source: string, write: boolean) {
    this.#outDir = outDir;
    this.#source = source;
    this.#manifest = outDir ? readManifest(outDir) : { version: MANIFEST_VERSION, sources: {} };
    this.previous = this.#manifest.sources[source] ?? {};
    this.#otherSources = Object.entries(this.#manifest.sources).filter(([name]) => name !== source);
    this.#present = new Set(outDir && existsSync(outDir) ? readdirSync(outDir) : []);
    this.#staging =
      outDir && write ? join(outDir, `.import-staging-${process.pid}-${Date.now()}`) : undefined;
    // An output folder this run creates is removed again if the run fails: it writes nothing.
    this.#createdOutDir =
      this.#staging !== undefined && outDir !== undefined && !existsSync(outDir);
    if (this.#staging) mkdirSync(this.#staging, { recursive: true });
  }

  /**
   * Reads the manifest and, when `write`, creates the staging folder.
   *
   * @throws ManifestError when the folder's manifest is not of this version.
   */
  static open(options: {
    readonly outDir?: string;
    readonly source: string;
    readonly write: boolean;
  }): StagedTicketFolder {
    return new StagedTicketFolder(options.outDir, options.source, options.write);
  }

  /**
   * Whether a ticket id belongs to someone else: another source's manifest lists it, or its
   * document exists without this source having written it (a hand-written sample ticket).
   */
  isTakenByAnother(issueId: string, documentName: string): boolean {
    return (
      this.#otherSources.some(([, ids]) => issueId in ids) ||
      (!(issueId in this.previous) && this.#present.has(documentName))
    );
  }

  /** Whether this run can leave the ticket as it is: same hash as last time, and its document still there. */
  isUnchanged(issueId: string, documentName: string, hash: string): boolean {
    return this.previous[issueId] === hash && this.#present.has(documentName);
  }

  /**
   * Writes one file into the staging folder (nothing without one: a dry run). Resolves once the
   * write is under way, waiting first when {@link WRITES_IN_FLIGHT} are pending.
   *
   * @throws the first failed staged write's error, at the next call.
   */
  async stage(name: string, content: string): Promise<void> {
    this.#throwWriteError();
    const staging = this.#staging;
    if (staging === undefined) return;
    while (this.#pending >= WRITES_IN_FLIGHT) await this.#writeEnded();
    this.#throwWriteError();
    this.#pending += 1;
    writeFile(join(staging, name), content, (error) => {
      this.#pending -= 1;
      if (error) this.#writeError ??= error;
      const wake = this.#onWriteEnd;
      this.#onWriteEnd = undefined;
      wake?.();
    });
  }

  /**
   * Waits for the staged writes, renames every staged file into place, deletes the pruned ones,
   * then replaces the manifest (itself written to a temporary file and renamed). A dry run
   * commits nothing.
   */
  async commit(plan: CommitPlan): Promise<void> {
    await this.#settle();
    this.#throwWriteError();
    const outDir = this.#outDir;
    const staging = this.#staging;
    if (outDir === undefined || staging === undefined) return;
    // Synchronous: nothing else is left to overlap with, and one call is the cheapest in CPU.
    for (const name of plan.writtenNames) renameSync(join(staging, name), join(outDir, name));
    for (const name of plan.removedNames) {
      if (existsSync(join(outDir, name))) unlinkSync(join(outDir, name));
    }
    const kept: Record<string, string> = plan.prune
      ? { ...plan.hashes }
      : {
          ...Object.fromEntries(
            Object.entries(this.previous).filter(([id]) => !(id in plan.hashes)),
          ),
          ...plan.hashes,
        };
    writeManifest(outDir, {
      version: MANIFEST_VERSION,
      sources: { ...this.#manifest.sources, [this.#source]: kept },
    });
    this.#committed = true;
  }

  /** Removes the staging folder, and the output folder if this run created it and did not commit. */
  async discard(): Promise<void> {
    // Pending writes first: removing the folder under them would leave files behind.
    await this.#settle();
    if (this.#staging) rmSync(this.#staging, { recursive: true, force: true });
    if (this.#createdOutDir && !this.#committed && this.#outDir) {
      rmSync(this.#outDir, { recursive: true, force: true });
    }
  }

  async #settle(): Promise<void> {
    while (this.#pending > 0) await this.#writeEnded();
  }

  #writeEnded(): Promise<void> {
    return new Promise((resolve) => {
      this.#onWriteEnd = resolve;
    });
  }

  #throwWriteError(): void {
    if (this.#writeError !== undefined) throw this.#writeError;
  }
}

function readManifest(outDir: string): Manifest {
  const path = join(outDir, MANIFEST_NAME);
  if (!existsSync(path)) return { version: MANIFEST_VERSION, sources: {} };
  const manifest = JSON.parse(readFileSync(path, 'utf8')) as Partial<Manifest>;
  if (manifest.version !== MANIFEST_VERSION || typeof manifest.sources !== 'object') {
    throw new ManifestError(
      `${path}: not an import manifest of this version; move it away to start over`,
    );
  }
  return manifest as Manifest;
}

function writeManifest(outDir: string, manifest: Manifest): void {
  const path = join(outDir, MANIFEST_NAME);
  // Written whole, then renamed: a crash leaves the old manifest or the new one, never half.
  const temporary = `${path}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(manifest)}\n`);
  renameSync(temporary, path);
}
