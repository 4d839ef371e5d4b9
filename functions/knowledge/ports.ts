import type { PublishKnowledgeResponse } from '../contract/knowledge.js';
import type { TicketDocumentFiles, TicketDocumentNames } from './ticket-document.js';

/**
 * Knowledge capture's ports (ADR 0011): where published tickets are written, how they are
 * numbered, and the owed-sync mark. Adapters implement them (`adapters/bedrock/knowledge-base-documents.ts`,
 * `adapters/dynamodb/counters.ts`, `adapters/dynamodb/sync-backlog.ts`); tests pass in-memory ones.
 * The use cases (`publish-ticket.ts`, `owed-sync.ts`) import them from here.
 */

/** The Knowledge Base's documents (the S3 data source in AWS; the local one locally). */
export interface KnowledgeDocuments {
  /** Writes the sidecar, then the document (a document is never visible without its metadata). */
  write(files: TicketDocumentFiles): Promise<void>;
  /** Removes the document, then the sidecar. */
  remove(names: TicketDocumentNames): Promise<void>;
  /** Starts a sync of the data source: `pending` when one is running and does not make way. */
  startSync(): Promise<PublishKnowledgeResponse['ingestion']>;
  /**
   * The categories of tickets uploaded after the deploy (`npm run import -- --upload` leaves a
   * category file per source), as written; empty when none were.
   */
  uploadedCategories(): Promise<readonly string[]>;
}

/** Ticket numbers for published tickets, never handed out twice. */
export interface IssueNumbers {
  next(tenantId: string): Promise<string>;
}

/**
 * The mark of a sync owed to published tickets (`owed-sync.ts`): one per deployment, set by a
 * publish whose sync could not start, read and cleared by the sync catch-up.
 */
export interface SyncBacklog {
  /** Notes that a sync is owed; the first time a sync was owed is kept. */
  markPending(at: Date): Promise<void>;
  /** The owed sync, if any. */
  read(): Promise<PendingSync | undefined>;
  /** Clears the mark, unless another publish marked it again after `seen` was read. */
  clear(seen: PendingSync): Promise<void>;
}

export interface PendingSync {
  /** When a sync was first owed (ISO 8601): how long published tickets have waited. */
  readonly pendingSince: string;
  /** How many times it was marked: the clear's condition (two marks may share a timestamp). */
  readonly marks: number;
}
