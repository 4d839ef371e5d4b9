import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { LOCAL_TICKET_BUCKET } from './local-bedrock-defaults.js';
import type { MetadataValue, TicketMetadata } from './ticket-index/match-retrieval-filter.js';
import {
  createTicketIndex,
  type TicketDocument,
  type TicketIndex,
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

/** The Knowledge Base's data source: the index Retrieve reads, rebuilt by each sync. */
export interface KnowledgeBaseDataSource {
  /** The current index; replaced whole by `sync`, so a search sees the old or the new one. */
  readonly index: TicketIndex;
  /** Re-reads every folder and swaps in a new index; syncs run one at a time. */
  sync(): Promise<DataSourceSync>;
}

/** What one scan found, keyed by source URI. */
interface Scan {
  readonly documents: Map<string, ScannedDocument>;
  readonly metadataFiles: number;
  readonly failureReasons: string[];
}

interface ScannedDocument {
  readonly document: TicketDocument;
  readonly textHash: string;
  readonly metadataHash: string;
}

const SIDECAR_SUFFIX = '.metadata.json';
/** The index's analysis cache inside `indexCacheDirectory`. */
const ANALYSIS_CACHE_FILE = 'ticket-index-analysis.bin';
/**
 * Files read synchronously between two turns of the event loop. Synchronous reads cost an
 * eighth of the CPU of `fs/promises` ones (measured on 20,000 ticket files: 0.5 s against 3.9 s),
 * and yielding every few hundred keeps Retrieve answering during a sync of 100,000 tickets.
 */
const FILES_PER_TURN = 500;

export interface DataSourceOptions {
  /**
   * Where the index keeps its analysis cache (`TicketIndexOptions.analysisCacheFile`), so a
   * restart over a large folder is fast. @default none: every start analyses every document
   */
  readonly indexCacheDirectory?: string;
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
 */
export async function openKnowledgeBaseDataSource(
  folders: readonly DataSourceFolder[],
  options: DataSourceOptions = {},
): Promise<KnowledgeBaseDataSource> {
  const indexOf = (scan: Scan) =>
    createTicketIndex(
      [...scan.documents.values()].map((scanned) => scanned.document),
      options.indexCacheDirectory === undefined
        ? {}
        : { analysisCacheFile: join(options.indexCacheDirectory, ANALYSIS_CACHE_FILE) },
    );
  let current = await scanFolders(folders);
  for (const reason of current.failureReasons) console.warn(`local Knowledge Base: ${reason}`);
  let index = indexOf(current);
  let queue: Promise<unknown> = Promise.resolve();

  const sync = async (): Promise<DataSourceSync> => {
    const next = await scanFolders(folders);
    const statistics = compareScans(current, next);
    // Swapped before the job is answered: the next Retrieve already searches the new documents.
    index = indexOf(next);
    current = next;
    return { statistics, failureReasons: next.failureReasons };
  };

  return {
    get index() {
      return index;
    },
    sync: () => {
      const run = queue.then(sync);
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

/**
 * The documents of one folder that a sync would index (those without a usable sidecar left
 * out), as the seed tickets' URIs name them. For tests that check a written ticket reads as the
 * local Knowledge Base reads it.
 */
export async function loadTicketDocuments(directory: string): Promise<TicketDocument[]> {
  const scan = await scanFolders([{ directory, uriPrefix: `s3://${LOCAL_TICKET_BUCKET}/` }]);
  return [...scan.documents.values()].map((scanned) => scanned.document);
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

async function scanFolders(folders: readonly DataSourceFolder[]): Promise<Scan> {
  const documents = new Map<string, ScannedDocument>();
  const failureReasons: string[] = [];
  let metadataFiles = 0;
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
      let text: string;
      let rawSidecar: string;
      try {
        text = readFileSync(join(folder.directory, fileName), 'utf8');
        if (!present.has(sidecarName)) {
          failureReasons.push(`${uri}: no metadata file ${sidecarName}; not indexed`);
          continue;
        }
        rawSidecar = readFileSync(join(folder.directory, sidecarName), 'utf8');
      } catch {
        continue; // deleted between the listing and the read: gone, as on the next sync
      }
      const metadata = parseSidecar(rawSidecar);
      if (typeof metadata === 'string') {
        failureReasons.push(`${uri}: ${sidecarName} ${metadata}; not indexed`);
        continue;
      }
      documents.set(uri, {
        document: { fileName, text, metadata, uri },
        textHash: createHash('sha256').update(text).digest('hex'),
        metadataHash: createHash('sha256').update(rawSidecar).digest('hex'),
      });
    }
  }
  return { documents, metadataFiles, failureReasons };
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
