/**
 * Where a sync writes ticket documents: the `--out` folder with its import manifest
 * (FileTicketDocumentStore — the same manifest the file import keeps, so a pull and a file
 * import of the same records agree), or the Knowledge Base bucket (deployed; branch sync-stack).
 */
export interface TicketDocumentStore {
  /** What this source wrote earlier: content hash per ticket id, and ids other writers own. */
  load(): Promise<StoredTickets>;
  /**
   * Writes and removes one page's documents, all or (on a failure) none visible as done; the
   * store's hashes change with them. The cursor is saved only after this resolves.
   */
  apply(changes: DocumentChanges): Promise<void>;
}

export interface StoredTickets {
  /** Content hash per ticket id of the documents this source wrote. */
  readonly hashes: ReadonlyMap<string, string>;
  /** A ticket id another source (or a hand-written document) holds: never overwritten. */
  isTakenByAnother(issueId: string, documentName: string): boolean;
}

export interface TicketDocumentWrite {
  readonly issueId: string;
  readonly hash: string;
  readonly documentName: string;
  readonly sidecarName: string;
  readonly document: string;
  readonly sidecar: string;
}

export interface DocumentChanges {
  readonly written: readonly TicketDocumentWrite[];
  /** Ticket ids whose documents go: reopened, merged, deleted, or no longer listed. */
  readonly removed: readonly string[];
}
