import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { LOCAL_TICKET_BUCKET } from './local-bedrock-defaults.js';
import {
  fileSignatureOf,
  type IndexSnapshot,
  readIndexSnapshot,
  type SnapshotDocument,
  trustsSignatureOf,
  writeIndexSnapshot,
  writeIndexSnapshotInBackground,
} from './ticket-index/index-snapshot.js';
import type { MetadataValue, TicketMetadata } from './ticket-index/match-retrieval-filter.js';
import {
  createTicketIndex,
  createTicketIndexInParallel,
  type InvertedIndex,
  type ParallelAnalysisOptions,
  type ParallelBuildOptions,
  startTicketIndexBuild,
  type TicketDocument,
  type TicketIndex,
  type TicketIndexBuild,
} from './ticket-index/ticket-index.js';

/** One folder of the data source: `<name>.md` documents beside `<name>.md.metadata.json` sidecars. */
export interface DataSourceFolder {
  readonly directory: string;
  /** The S3 URI prefix its documents are retrieved under, ending in `/`. */
  readonly uriPrefix: string;
}

/** `IngestionJobStatistics` in the Bedrock Agent API's field names. */
export interface IngestionStatistics {
  readonly numberOfDocumentsScanned: number;
  readonly numberOfMetadataDocumentsScanned: number;
  readonly numberOfNewDocumentsIndexed: number;
  readonly numberOfModifiedDocumentsIndexed: number;
  readonly numberOfMetadataDocumentsModified: number;
  readonly numberOfDocumentsDeleted: number;
  readonly numberOfDocumentsFailed: number;
  readonly numberOfDocumentsSkipped: number;
}

export interface DataSourceSync {
  readonly statistics: IngestionStatistics;
  /** One line per failed document, as Bedrock lists them in the job's `failureReasons`. */
  readonly failureReasons: readonly string[];
}

/** How the current index came about: what the start or the last sync had to read and analyse. */
export interface IndexBuild {
  readonly documents: number;
  /** Documents whose files were read (the others were taken from the snapshot or last scan). */
  readonly documentsRead: number;
  /** Chunks analysed from their text (the others came from the analysis cache or the postings). */
  readonly chunksAnalysed: number;
  /** Whether the postings were reused whole (nothing changed) instead of laid out again. */
  readonly postingsReused: boolean;
}

/** The Knowledge Base's data source: the index Retrieve reads, rebuilt by each sync. */
export interface KnowledgeBaseDataSource {
  /** The current index; replaced whole by `sync`, so a search sees the old or the new one. */
  readonly index: TicketIndex;
  /** How the current index was built. */
  readonly build: IndexBuild;
  /** Re-reads every folder and swaps in a new index; syncs run one at a time. */
  sync(): Promise<DataSourceSync>;
  /**
   * Settles when the caches of the current index (`indexCacheDirectory`) are on disk: at once,
   * unless they are written after ready (`DataSourceOptions.writeCachesAfterReady`). Never
   * rejects: a cache that could not be written is a warning, and the next start reads the folder.
   */
  cachesWritten(): Promise<void>;
  /**
   * The S3 URIs of the documents the current index holds, sorted (what ListKnowledgeBaseDocuments
   * lists as `INDEXED`): a document refused for its sidecar is not among them.
   */
  documentUris(): readonly string[];
}

/** What one scan found, keyed by source URI. */
interface Scan {
  readonly documents: Map<string, SnapshotDocument>;
  readonly metadataFiles: number;
  readonly failureReasons: string[];
  /** When the scan began (`IndexSnapshot.scannedAtMs`). */
  readonly scannedAtMs: number;
  /** Documents whose files were read, not taken from the previous scan by their signatures. */
  readonly read: number;
}

/** The documents an index was built from, and its postings. */
interface Built {
  readonly documents: readonly SnapshotDocument[];
  readonly postings: { readonly index: InvertedIndex; readonly distinct: number };
}

const SIDECAR_SUFFIX = '.metadata.json';
/** The index's analysis cache inside `indexCacheDirectory`. */
const ANALYSIS_CACHE_FILE = 'ticket-index-analysis.bin';
/** The snapshot of the scanned documents and their postings inside `indexCacheDirectory`. */
const SNAPSHOT_FILE = 'ticket-index-snapshot.bin';
/**
 * Files read synchronously between two turns of the event loop. Synchronous reads cost an
 * eighth of the CPU of `fs/promises` ones (measured on 20,000 ticket files: 0.5 s against 3.9 s),
 * and yielding every few hundred keeps Retrieve answering during a sync of 100,000 tickets.
 */
const FILES_PER_TURN = 500;

export interface DataSourceOptions {
  /**
   * Where the index keeps its caches between starts (ADR 0021): a snapshot of the scanned
   * documents and the postings built from them, so a restart over an unchanged folder reads one
   * file instead of every document and analyses nothing; and the analysis cache
   * (`TicketIndexOptions.analysisCacheFile`), so a changed, added or removed document costs the
   * analysis of that document only. @default none: every start reads and analyses every document
   */
  readonly indexCacheDirectory?: string;
  /**
   * How the chunks an index build must analyse are spread over worker threads
   * (`createTicketIndexInParallel`). @default one per core, from 4,000 chunks
   */
  readonly parallelAnalysis?: ParallelAnalysisOptions;
  /**
   * Whether the caches of `indexCacheDirectory` are written after the data source is open and
   * serving (`cachesWritten` tells when they are on disk) rather than before it opens. A build
   * over 100,000 new tickets spends seconds writing them; meanwhile Retrieve answers between
   * pieces of the encoding (ADR 0021 has the waits measured). Each file goes through a temporary
   * file and a rename, so a process stopped meanwhile leaves the previous file or none, never
   * half of one; a sync waits for the writes of the index before it.
   * @default false: written before the source opens
   */
  readonly writeCachesAfterReady?: boolean;
}

/**
 * Opens the local data source over its folders (the seed tickets as the deploy uploads them, and
 * the local bucket's folder for published tickets) and indexes what they hold now — as the
 * Knowledge Base was after its last sync, so tickets published before a restart are found.
 *
 * A document without its sidecar, or with one that is not valid JSON with a
 * `metadataAttributes` object, is counted as failed and NOT indexed. Bedrock would index such a
 * document without metadata (or fail only that sidecar); here it is refused, because the
 * `restricted` attribute lives in the sidecar: a restricted ticket whose sidecar is missing or
 * broken would otherwise become retrievable by everyone, the one thing restriction forbids.
 *
 * With `indexCacheDirectory`, a scan takes a document from the snapshot (or the previous scan)
 * without reading it when both its files still have the signatures they had when read
 * (`fileSignatureOf`: size, times, inode) and did not change within a few seconds before
 * that read (`trustsSignatureOf`); the postings are reused when every document's content hashes
 * are the snapshot's, in the same order, and rebuilt otherwise.
 */
export async function openKnowledgeBaseDataSource(
  folders: readonly DataSourceFolder[],
  options: DataSourceOptions = {},
): Promise<KnowledgeBaseDataSource> {
  const { indexCacheDirectory } = options;
  const folderList = folders.map(({ directory, uriPrefix }) => ({ directory, uriPrefix }));
  const snapshotFile =
    indexCacheDirectory === undefined ? undefined : join(indexCacheDirectory, SNAPSHOT_FILE);
  const snapshot =
    snapshotFile === undefined ? undefined : readIndexSnapshot(snapshotFile, folderList);
  let built: Built | undefined =
    snapshot === undefined
      ? undefined
      : {
          documents: snapshot.documents,
          postings: { index: snapshot.postings, distinct: snapshot.distinct },
        };
  let build: IndexBuild | undefined;
  let cachesWritten: Promise<void> = Promise.resolve();
  const afterReady = options.writeCachesAfterReady === true;
  const buildOptions: ParallelBuildOptions = {
    ...(indexCacheDirectory === undefined
      ? {}
      : { analysisCacheFile: join(indexCacheDirectory, ANALYSIS_CACHE_FILE) }),
    ...options.parallelAnalysis,
    analysisCacheWrite: afterReady ? 'in-background' : 'before-return',
  };
  /** The index of a scan, built anew or — `streamed` — from the build fed by the scan itself. */
  const indexOf = async (scan: Scan, streamed?: StreamedBuild): Promise<TicketIndex> => {
    const documents = [...scan.documents.values()];
    const reusable = built !== undefined && sameContent(built.documents, documents);
    // The streamed build holds the scan's documents unless one URI was found twice (two
    // folders under one prefix): the scan then keeps the last, at the first one's place.
    const streamedFits =
      streamed !== undefined &&
      streamed.documents.length === documents.length &&
      streamed.documents.every((document, position) => document === documents[position]);
    if (streamed !== undefined && !streamedFits) await streamed.build.abandon();
    const index = reusable
      ? {
          ...createTicketIndex(documents, { postings: built?.postings }),
          analysisCacheWritten: Promise.resolve(),
        }
      : streamedFits
        ? await streamed.build.finish()
        : await createTicketIndexInParallel(documents, buildOptions);
    built = { documents, postings: { index: index.postings, distinct: index.analysis.distinct } };
    build = {
      documents: documents.length,
      documentsRead: scan.read,
      chunksAnalysed: index.analysis.analysed,
      postingsReused: reusable,
    };
    // Rewritten when the index was rebuilt, or files were read again (touched, racily clean):
    // the next start then trusts their new signatures.
    if (snapshotFile !== undefined && (!reusable || scan.read > 0)) {
      const written: IndexSnapshot = {
        folders: folderList,
        scannedAtMs: scan.scannedAtMs,
        documents,
        postings: index.postings,
        distinct: index.analysis.distinct,
      };
      // The index serves without it; the next start just reads the folder again.
      const warn = (error: unknown) =>
        console.warn(`local Knowledge Base: could not write ${snapshotFile}: ${String(error)}`);
      if (afterReady) {
        // After the analysis cache: one file at a time, as before ready.
        cachesWritten = index.analysisCacheWritten.then(() =>
          writeIndexSnapshotInBackground(snapshotFile, written).catch(warn),
        );
      } else {
        try {
          writeIndexSnapshot(snapshotFile, written);
        } catch (error) {
          warn(error);
        }
      }
    } else {
      cachesWritten = index.analysisCacheWritten;
    }
    return index;
  };
  const fromSnapshot: Scan | undefined =
    snapshot === undefined
      ? undefined
      : {
          documents: new Map(snapshot.documents.map((document) => [document.uri, document])),
          metadataFiles: 0,
          failureReasons: [],
          scannedAtMs: snapshot.scannedAtMs,
          read: 0,
        };
  // Without a cache directory nothing is taken from an earlier scan (no signatures trusted).
  const trusting = (scan: Scan) => (indexCacheDirectory === undefined ? undefined : scan);
  // Without a snapshot (a first start) nothing can be reused: the index is built as the scan
  // reads the files, so reading, analysing (worker threads) and laying out overlap.
  const streamed: StreamedBuild | undefined =
    built === undefined ? { build: startTicketIndexBuild(buildOptions), documents: [] } : undefined;
  let current: Scan;
  try {
    current = await scanFolders(
      folders,
      fromSnapshot,
      streamed === undefined
        ? undefined
        : (document) => {
            streamed.documents.push(document);
            streamed.build.add(document);
          },
    );
  } catch (error) {
    await streamed?.build.abandon();
    throw error;
  }
  for (const reason of current.failureReasons) console.warn(`local Knowledge Base: ${reason}`);
  let index = await indexOf(current, streamed);
  let queue: Promise<unknown> = Promise.resolve();

  const sync = async (): Promise<DataSourceSync> => {
    // The previous index's caches first: the build reads the analysis cache, and both files are
    // written through the same temporary names.
    await cachesWritten;
    const next = await scanFolders(folders, trusting(current));
    const statistics = compareScans(current, next);
    // Swapped before the job is answered: the next Retrieve already searches the new documents.
    index = await indexOf(next);
    current = next;
    return { statistics, failureReasons: next.failureReasons };
  };

  return {
    get index() {
      return index;
    },
    get build() {
      return build as IndexBuild;
    },
    documentUris: () => [...current.documents.keys()].sort(),
    cachesWritten: () => cachesWritten,
    sync: () => {
      const run = queue.then(sync);
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

/** A build fed by a scan as it found documents, and the documents it was fed, in order. */
interface StreamedBuild {
  readonly build: TicketIndexBuild;
  readonly documents: SnapshotDocument[];
}

/** Whether two document lists hold the same content in the same order (what postings index). */
function sameContent(
  before: readonly SnapshotDocument[],
  after: readonly SnapshotDocument[],
): boolean {
  return (
    before.length === after.length &&
    before.every((document, position) => {
      const other = after[position] as SnapshotDocument;
      return (
        document.uri === other.uri &&
        document.textHash === other.textHash &&
        document.metadataHash === other.metadataHash
      );
    })
  );
}

/**
 * The documents of one folder that a sync would index (those without a usable sidecar left
 * out), as the seed tickets' URIs name them. For tests that check a written ticket reads as the
 * local Knowledge Base reads it.
 */
export async function loadTicketDocuments(directory: string): Promise<TicketDocument[]> {
  const scan = await scanFolders([{ directory, uriPrefix: `s3://${LOCAL_TICKET_BUCKET}/` }]);
  return [...scan.documents.values()].map(({ fileName, text, metadata, uri }) => ({
    fileName,
    text,
    metadata,
    uri,
  }));
}

function compareScans(before: Scan, after: Scan): IngestionStatistics {
  let added = 0;
  let modified = 0;
  let metadataModified = 0;
  for (const [uri, scanned] of after.documents) {
    const previous = before.documents.get(uri);
    if (previous === undefined) added += 1;
    else if (previous.textHash !== scanned.textHash) modified += 1;
    else if (previous.metadataHash !== scanned.metadataHash) metadataModified += 1;
  }
  const deleted = [...before.documents.keys()].filter((uri) => !after.documents.has(uri)).length;
  return {
    numberOfDocumentsScanned: after.documents.size + after.failureReasons.length,
    numberOfMetadataDocumentsScanned: after.metadataFiles,
    numberOfNewDocumentsIndexed: added,
    numberOfModifiedDocumentsIndexed: modified,
    numberOfMetadataDocumentsModified: metadataModified,
    // A document that now fails is gone from the index too: it counts as deleted and failed.
    numberOfDocumentsDeleted: deleted,
    numberOfDocumentsFailed: after.failureReasons.length,
    numberOfDocumentsSkipped: 0,
  };
}

/**
 * Lists the folders and takes each document with a usable sidecar: from `previous` when both its
 * files' signatures are those recorded there and trusted (`trustsSignatureOf`), else by reading
 * the files — each stat'ed before it is read, so a change during the read shows as another
 * signature next time.
 */
async function scanFolders(
  folders: readonly DataSourceFolder[],
  previous?: Scan,
  /** Told of each document taken, in the order taken. */
  onDocument?: (document: SnapshotDocument) => void,
): Promise<Scan> {
  const scannedAtMs = Date.now();
  const documents = new Map<string, SnapshotDocument>();
  const failureReasons: string[] = [];
  let metadataFiles = 0;
  let read = 0;
  for (const folder of folders) {
    let names: string[];
    try {
      names = await readdir(folder.directory);
    } catch {
      continue; // a folder not created yet (nothing published) holds no documents
    }
    const present = new Set(names);
    metadataFiles += names.filter((name) => name.endsWith(`.md${SIDECAR_SUFFIX}`)).length;
    let filesThisTurn = 0;
    for (const fileName of names.filter((name) => name.endsWith('.md')).sort()) {
      filesThisTurn += 1;
      if (filesThisTurn >= FILES_PER_TURN) {
        filesThisTurn = 0;
        await yieldToEventLoop();
      }
      const uri = `${folder.uriPrefix}${fileName}`;
      const sidecarName = `${fileName}${SIDECAR_SUFFIX}`;
      const textPath = join(folder.directory, fileName);
      const sidecarPath = join(folder.directory, sidecarName);
      const noSidecarReason = `${uri}: no metadata file ${sidecarName}; not indexed`;
      const known = previous?.documents.get(uri);
      if (previous !== undefined && known !== undefined) {
        const textStats = statSync(textPath, { throwIfNoEntry: false });
        if (textStats === undefined) continue; // deleted since the listing: gone, as on the next sync
        if (!present.has(sidecarName)) {
          failureReasons.push(noSidecarReason);
          continue;
        }
        const sidecarStats = statSync(sidecarPath, { throwIfNoEntry: false });
        if (sidecarStats === undefined) continue;
        const textSignature = fileSignatureOf(textStats);
        const sidecarSignature = fileSignatureOf(sidecarStats);
        if (
          known.textSignature === textSignature &&
          known.sidecarSignature === sidecarSignature &&
          trustsSignatureOf(textSignature, previous.scannedAtMs) &&
          trustsSignatureOf(sidecarSignature, previous.scannedAtMs)
        ) {
          documents.set(uri, known);
          onDocument?.(known);
          continue;
        }
      }
      const textFile = readWithSignature(textPath);
      if (textFile === undefined) continue; // deleted since the listing: gone, as on the next sync
      if (!present.has(sidecarName)) {
        failureReasons.push(noSidecarReason);
        continue;
      }
      const sidecarFile = readWithSignature(sidecarPath);
      if (sidecarFile === undefined) continue;
      const { content: text, signature: textSignature } = textFile;
      const { content: rawSidecar, signature: sidecarSignature } = sidecarFile;
      read += 1;
      const metadata = parseSidecar(rawSidecar);
      if (typeof metadata === 'string') {
        failureReasons.push(`${uri}: ${sidecarName} ${metadata}; not indexed`);
        continue;
      }
      const document: SnapshotDocument = {
        uri,
        fileName,
        text,
        metadata,
        textHash: createHash('sha256').update(text).digest('hex'),
        metadataHash: createHash('sha256').update(rawSidecar).digest('hex'),
        textSignature,
        sidecarSignature,
      };
      documents.set(uri, document);
      onDocument?.(document);
    }
  }
  return { documents, metadataFiles, failureReasons, scannedAtMs, read };
}

/**
 * A file's content with its signature (`fileSignatureOf`), taken from the opened file before it
 * is read; undefined when the file is gone. The bytes the signature counted are read: a file
 * written meanwhile (shorter, longer or half-written, as any read can meet) has another
 * signature by then, so the next scan reads it again. One open for both: a stat of the path and
 * then `readFileSync` cost a quarter more CPU (measured on 40,000 ticket files: 0.90 s against
 * 0.70 s).
 */
function readWithSignature(path: string): { content: string; signature: string } | undefined {
  let descriptor: number;
  try {
    descriptor = openSync(path, 'r');
  } catch {
    return undefined; // deleted between the listing and the read: gone, as on the next sync
  }
  try {
    const stats = fstatSync(descriptor);
    const bytes = Buffer.allocUnsafe(stats.size);
    let filled = 0;
    while (filled < bytes.length) {
      const count = readSync(descriptor, bytes, filled, bytes.length - filled, filled);
      if (count === 0) break; // shortened since the stat
      filled += count;
    }
    return { content: bytes.toString('utf8', 0, filled), signature: fileSignatureOf(stats) };
  } catch {
    return undefined;
  } finally {
    closeSync(descriptor);
  }
}

type TypedAttribute = {
  value?: {
    type?: string;
    stringValue?: string;
    numberValue?: number;
    booleanValue?: boolean;
    stringListValue?: string[];
  };
};

// Sidecars come in a simple form (`"year": 2026`) and a typed form
// (`"year": { "value": { "type": "NUMBER", "numberValue": 2026 } }`); both are accepted by
// Bedrock, see AWS_NOTES §4 "Metadata sidecars".
const readAttribute = (raw: unknown): MetadataValue | undefined => {
  if (typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean') return raw;
  if (Array.isArray(raw)) return raw.map(String);
  const typed = (raw as TypedAttribute | null)?.value;
  return typed?.stringValue ?? typed?.numberValue ?? typed?.booleanValue ?? typed?.stringListValue;
};

/** The sidecar's attributes, or why it is unusable. */
function parseSidecar(raw: string): TicketMetadata | string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return 'is not valid JSON';
  }
  const attributes = (parsed as { metadataAttributes?: unknown } | null)?.metadataAttributes;
  if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) {
    return 'has no metadataAttributes object';
  }
  const metadata: Record<string, MetadataValue> = {};
  for (const [key, value] of Object.entries(attributes)) {
    const attribute = readAttribute(value);
    if (attribute !== undefined) metadata[key] = attribute;
  }
  return metadata;
}
