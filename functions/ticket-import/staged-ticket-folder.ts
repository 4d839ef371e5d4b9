import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * The output ticket folder as an import writes it: the manifest of what earlier runs wrote
 * (content hash per ticket id, per source: incremental runs rewrite only changed tickets),
 * staging of the new and changed files, and the commit that puts them into place.
 *
 * Safety: nothing is written into the output folder before {@link StagedTicketFolder.commit};
 * {@link StagedTicketFolder.discard} (a fatal error before the commit) removes what was staged,
 * so the folder is left as it was. Two ways to stage, chosen at {@link StagedTicketFolder.open}:
 *
 * - **Whole folder** — the output folder does not exist yet, or is empty (a first import, or
 *   `--upload`'s temporary folder): every file and the manifest are written into a staging folder
 *   beside it, and the commit is one rename of that folder onto the output folder's name. The
 *   folder appears complete or not at all, and 100,000 tickets cost one rename, not 200,000.
 * - **Into place** — the folder holds tickets already: new and changed files are staged in a
 *   folder inside it, and the commit renames them one by one, deletes the pruned ones, then
 *   replaces the manifest.
 *
 * Files are written synchronously (open, write, close), one mkdir for the staging folder, no
 * fsync: the promise is about a failed run (a crash before the commit leaves only the staging
 * folder), not about power loss — which neither the Knowledge Base sync nor a re-run needs, as a
 * re-run rewrites whatever differs from the manifest. Synchronous writes cost the least CPU:
 * on 18,000 files, `fs.writeFile`'s callback on libuv's threadpool cost 4–6× their user CPU and
 * `fs/promises` twice that again (bench/README.md, import throughput).
 */

/** The manifest's file name in the output folder (hidden from the Knowledge Base: not `.md`). */
export const MANIFEST_NAME = '.import-manifest.json';
const MANIFEST_VERSION = 1;

/** The import's record of what it wrote: content hash per ticket id, per source. */
interface Manifest {
  readonly version: typeof MANIFEST_VERSION;
  readonly sources: Record<string, Record<string, string>>;
}

/**
 * The folder as a commit left it: its manifest and the names in it. A sync that writes page
 * after page into one folder passes it to the next {@link StagedTicketFolder.open}, so a page
 * costs its own files, not a read of a manifest and a listing that grow with every ticket.
 */
export interface FolderSnapshot {
  readonly manifest: Manifest;
  readonly present: Set<string>;
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
  /** Ticket ids the manifest forgets besides (a sync's removed tickets; their files are in `removedNames`). */
  readonly forgotten?: readonly string[];
}

/**
 * One run's view of the output folder (or of none, for a dry run without `--out`).
 *
 * @example
 * const folder = StagedTicketFolder.open({ outDir: 'tickets/', source: 'servicenow', write: true });
 * try {
 *   folder.stage('INC0012345.md', document);
 *   folder.commit({ hashes, writtenNames, removedNames: [], prune: false });
 * } finally {
 *   folder.discard();
 * }
 */
export class StagedTicketFolder {
  /** Content hash per ticket id as the last run of this source recorded it. */
  readonly previous: Readonly<Record<string, string>>;
  readonly #outDir: string | undefined;
  readonly #source: string;
  readonly #manifest: Manifest;
  /** File names present in the output folder when the run began (one listing, not a stat per ticket). */
  readonly #present: Set<string>;
  readonly #otherSources: readonly (readonly [string, Record<string, string>])[];
  readonly #staging: string | undefined;
  /** Whole-folder staging: the commit renames the staging folder onto the output folder. */
  readonly #wholeFolder: boolean;
  #committed = false;
  #manifestAfter: Manifest;

  private constructor(
    outDirAsGiven: string | undefined,
    source: string,
    write: boolean,
    known: FolderSnapshot | undefined,
  ) {
    // Resolved, so the whole-folder staging sits beside it however it is written (`tickets/`).
    const outDir = outDirAsGiven === undefined ? undefined : resolve(outDirAsGiven);
    this.#outDir = outDir;
    this.#source = source;
    this.#manifest =
      known?.manifest ??
      (outDir ? readManifest(outDir) : { version: MANIFEST_VERSION, sources: {} });
    this.#manifestAfter = this.#manifest;
    this.previous = this.#manifest.sources[source] ?? {};
    this.#otherSources = Object.entries(this.#manifest.sources).filter(([name]) => name !== source);
    const exists = outDir !== undefined && existsSync(outDir);
    this.#present = known?.present ?? new Set(exists ? readdirSync(outDir) : []);
    // A symbolic link to an empty folder is filled through the link: renaming onto it would
    // replace the link, not fill the folder it points to.
    this.#wholeFolder =
      outDir !== undefined &&
      write &&
      this.#present.size === 0 &&
      !(exists && lstatSync(outDir).isSymbolicLink());
    const staging = `.import-staging-${process.pid}-${Date.now()}`;
    if (!outDir || !write) {
      this.#staging = undefined;
    } else if (this.#wholeFolder) {
      // Beside the output folder, on the same file system, so the commit is one rename.
      this.#staging = join(dirname(outDir), `.${basename(outDir)}${staging}`);
    } else {
      this.#staging = join(outDir, staging);
    }
    if (this.#staging) mkdirSync(this.#staging, { recursive: true });
  }

  /**
   * Reads the manifest and lists the folder (unless `known`: what this process's last commit
   * into the folder left, {@link StagedTicketFolder.snapshot}) and, when `write`, creates the
   * staging folder.
   *
   * @throws ManifestError when the folder's manifest is not of this version.
   */
  static open(options: {
    readonly outDir?: string;
    readonly source: string;
    readonly write: boolean;
    readonly known?: FolderSnapshot;
  }): StagedTicketFolder {
    return new StagedTicketFolder(options.outDir, options.source, options.write, options.known);
  }

  /**
   * The folder as it is now — after the commit, if there was one — for the next `open` of the
   * same folder by this process (nothing else may write it meanwhile).
   */
  snapshot(): FolderSnapshot {
    return { manifest: this.#manifestAfter, present: this.#present };
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

  /** {@link StagedTicketFolder.isTakenByAnother} in a snapshot: what the folder holds now. */
  static isTakenInSnapshot(
    snapshot: FolderSnapshot,
    source: string,
    issueId: string,
    documentName: string,
  ): boolean {
    for (const name in snapshot.manifest.sources) {
      if (name !== source && issueId in (snapshot.manifest.sources[name] ?? {})) return true;
    }
    return (
      !(issueId in (snapshot.manifest.sources[source] ?? {})) && snapshot.present.has(documentName)
    );
  }

  /** Whether this run can leave the ticket as it is: same hash as last time, and its document still there. */
  isUnchanged(issueId: string, documentName: string, hash: string): boolean {
    return this.previous[issueId] === hash && this.#present.has(documentName);
  }

  /** Writes one file into the staging folder (nothing without one: a dry run). */
  stage(name: string, content: string): void {
    if (this.#staging === undefined) return;
    writeFileSync(`${this.#staging}/${name}`, content);
  }

  /**
   * Puts the staged files into place and replaces the manifest (written to a temporary file and
   * renamed): the whole staging folder renamed onto the output folder, or each staged file
   * renamed into it and the pruned ones deleted. A dry run commits nothing.
   */
  commit(plan: CommitPlan): void {
    const outDir = this.#outDir;
    const staging = this.#staging;
    if (outDir === undefined || staging === undefined) return;
    // Spread, not filtered entries: one copy of the hashes, not an array per ticket.
    const kept: Record<string, string> = plan.prune
      ? { ...plan.hashes }
      : { ...this.previous, ...plan.hashes };
    for (const id of plan.forgotten ?? []) delete kept[id];
    const manifest: Manifest = {
      version: MANIFEST_VERSION,
      sources: { ...this.#manifest.sources, [this.#source]: kept },
    };
    if (this.#wholeFolder) {
      // Nothing to remove: the folder was empty, so no earlier ticket of this source exists.
      writeManifest(staging, manifest);
      renameOntoEmptyFolder(staging, outDir);
      this.#committed = true;
      this.#committedAs(manifest, plan);
      return;
    }
    for (const name of plan.writtenNames) renameSync(join(staging, name), join(outDir, name));
    for (const name of plan.removedNames) {
      if (existsSync(join(outDir, name))) unlinkSync(join(outDir, name));
    }
    writeManifest(outDir, manifest);
    this.#committed = true;
    this.#committedAs(manifest, plan);
  }

  /** The snapshot follows the commit: the names put in and taken out, the manifest written. */
  #committedAs(manifest: Manifest, plan: CommitPlan): void {
    this.#manifestAfter = manifest;
    for (const name of plan.writtenNames) this.#present.add(name);
    for (const name of plan.removedNames) this.#present.delete(name);
    this.#present.add(MANIFEST_NAME);
  }

  /** Removes the staging folder (after a commit into place, the empty one left behind). */
  discard(): void {
    if (this.#staging === undefined) return;
    if (this.#wholeFolder && this.#committed) return; // it is the output folder now
    rmSync(this.#staging, { recursive: true, force: true });
  }
}

/**
 * Renames the staging folder onto `outDir`, which is absent or empty. POSIX rename(2) replaces
 * an empty directory in one step; where it refuses (Windows), the empty folder is removed first
 * (`rmdir` fails on a folder that is no longer empty: nothing written meanwhile is lost).
 */
function renameOntoEmptyFolder(staging: string, outDir: string): void {
  try {
    renameSync(staging, outDir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'EEXIST' && code !== 'EACCES') throw error;
    if (!existsSync(outDir)) throw error;
    rmdirSync(outDir);
    renameSync(staging, outDir);
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
