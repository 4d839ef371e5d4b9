/** A past ticket as retrieved from the Knowledge Base (one chunk of its document). */
export interface RetrievedTicket {
  readonly issueId: string;
  readonly subject: string;
  readonly category?: string;
  readonly status?: string;
  readonly createdAt?: string;
  readonly restricted: boolean;
  /** The chunk text as stored in the Knowledge Base. */
  readonly text: string;
  readonly score: number;
  readonly uri?: string;
}

export interface RetrieveOptions {
  readonly limit: number;
  readonly signal?: AbortSignal;
}

/** Knowledge Base access as the core needs it; the Bedrock adapter implements it. */
export interface Retriever {
  /** Similar tickets for the current inquiry's text. Must already exclude restricted tickets. */
  search(query: string, options: RetrieveOptions): Promise<RetrievedTicket[]>;
  /** Tickets referenced by number (`#1234`), fetched by metadata filter. */
  fetchByIssueIds(
    issueIds: readonly string[],
    options: RetrieveOptions,
  ): Promise<RetrievedTicket[]>;
}
