import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { MetadataValue, TicketMetadata } from './match-retrieval-filter.js';

/** One Knowledge Base source document with its sidecar metadata. */
export interface TicketDocument {
  /** File name inside the tickets directory, e.g. `1234.md`. */
  readonly fileName: string;
  readonly text: string;
  readonly metadata: TicketMetadata;
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

const readMetadata = async (path: string): Promise<TicketMetadata> => {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch {
    return {}; // a document without a sidecar is indexed without attributes, as on Bedrock
  }
  const attributes = (JSON.parse(raw) as { metadataAttributes?: Record<string, unknown> })
    .metadataAttributes;
  const metadata: Record<string, MetadataValue> = {};
  for (const [key, value] of Object.entries(attributes ?? {})) {
    const attribute = readAttribute(value);
    if (attribute !== undefined) metadata[key] = attribute;
  }
  return metadata;
};

/**
 * Reads `<name>.md` documents and their `<name>.md.metadata.json` sidecars from a directory,
 * in file-name order. A missing directory yields no documents.
 */
export async function loadTicketDocuments(directory: string): Promise<TicketDocument[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return [];
  }
  const documents = names
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map(async (fileName) => ({
      fileName,
      text: await readFile(join(directory, fileName), 'utf8'),
      metadata: await readMetadata(join(directory, `${fileName}.metadata.json`)),
    }));
  return Promise.all(documents);
}
