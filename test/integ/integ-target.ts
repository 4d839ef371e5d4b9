import type { VectorStore } from '../../functions/adapters/bedrock/vector-store-search.js';
import type { Retriever } from '../../functions/chat/ports.js';
import type { ApiCaller } from './streamed-chat.js';

/**
 * Where the acceptance suite runs: a deployed stack through CloudFront (`aws-target.ts`) or the
 * local stack (`local-target.ts`, `--local`). The checks only see this interface; what a target
 * cannot do is a reason in `notApplicable`, which the report prints as "not applicable", never
 * as passed.
 */
export interface IntegTarget {
  readonly kind: 'aws' | 'local';
  /** One line for the report: the stack and region, or the local URL. */
  readonly label: string;
  /** Calls `/api/<path>` as the suite's user, exactly as the web app does on this target. */
  readonly api: ApiCaller;
  /** The function's heartbeat interval (`API_TIMINGS.heartbeatMs`, or the test entry's). */
  readonly heartbeatMs: number;
  /**
   * The long-answer check: the chat to send, and how long heartbeats must be seen arriving.
   * On AWS a request for a long answer and 60 s (CloudFront's longest origin read timeout
   * without a quota increase); locally a scripted model that stays silent for many heartbeats.
   */
  readonly longAnswer: {
    readonly message: string;
    readonly minSpanMs: number;
    /** Called right before the chat is sent (the local target queues its silent model). */
    readonly prepare?: () => void;
    /** How the answer is made long, for the report. */
    readonly how: string;
  };
  /** The Function URL, for the unsigned-call check (AWS only). */
  readonly functionUrl?: string;
  /** The Knowledge Base the function retrieves from, for the retrieval evaluation. */
  readonly retriever: Retriever;
  readonly retrieverLabel: string;
  /** The Knowledge Base's vector store (the stack's VectorStore output), named in the report. */
  readonly vectorStore: VectorStore;
  /** Whether the function expands retrieval queries (QUERY_EXPANSION), so the evaluation does too. */
  readonly queryExpansion: boolean;
  /**
   * Knowledge capture on this target (the check publishes one ticket and removes it again);
   * absent where it cannot run, with the reason in `notApplicable`.
   */
  readonly knowledge?: {
    /** How long a published ticket may take to become retrievable (the sync). */
    readonly searchableWithinMs: number;
    /** Deletes the ticket's document and sidecar from the bucket and starts a sync. */
    removePublished(issueId: string): Promise<'synced' | 'sync-pending'>;
  };
  /** Check id → why it cannot run on this target. */
  readonly notApplicable: Readonly<Record<string, string>>;
  /** Removes what the target created for the run (the temporary user). */
  close(): Promise<void>;
}
