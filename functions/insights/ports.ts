import type { AnswerFeedback } from '../contract/conversations.js';
import type { GapReason, Insights, InsightsWindow, SourceFreshness } from '../contract/insights.js';

/**
 * What service-desk insights need from storage (issue #28, ADR 0022): aggregates written where
 * events happen — a finished chat, a feedback commit, a knowledge draft or publish — so reading
 * the page costs O(days × topics) items, never a scan of conversations. Nothing here imports AWS;
 * `functions/adapters/dynamodb/` and the in-memory store implement it.
 *
 * Privacy: the only inquiry text stored is a gap example (leads only) and a solved inquiry (the
 * feedback eval's labelled query), both scrubbed of personal data, both deleted with their
 * conversation (the delete route and the retention sweeper call `forgetConversation`).
 */

/** A tenant's aggregates; every method is scoped to one. */
export interface InsightsScope {
  readonly tenantId: string;
}

/** What a finished chat adds (from the chat's report and its stored answer). */
export interface ChatInsight {
  /** UTC day of the chat, `YYYY-MM-DD`. */
  readonly day: string;
  readonly conversationId: string;
  /** The answer turn's seq (feedback refers to it). */
  readonly answerSeq: number;
  readonly outcome: 'complete' | 'clarification' | 'truncated' | 'stopped' | 'failed';
  readonly timeToFirstTokenMs?: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Absent when the model has no price. */
  readonly estimatedCostUsd?: number;
  /** Canonical issue ids of the answer's cards, in card order. */
  readonly citedIssueIds: readonly string[];
  /**
   * The Knowledge Base's subject of each cited ticket (issue id → subject, from the retrieved or
   * fetched ticket, never the model's card): kept as the ticket's label for "what helped". An id
   * without one shows no subject.
   */
  readonly citedSubjects?: Readonly<Record<string, string>>;
  /**
   * The stored answer has a non-empty `mail_draft` (what staff can copy or send): it counts among
   * the answers with a draft, and only such an answer's first copy/open or edit/refinement counts
   * as an accepted or changed answer (ADR 0023). @default false
   */
  readonly hasMailDraft?: boolean;
  /** Canonical issue ids of the retrieved tickets (after the restricted filter). */
  readonly retrievedIssueIds: readonly string[];
  /**
   * The inquiry's topic, gap or not: the store keeps it with the answer, so a later 👎 with
   * `irrelevant_tickets`/`incomplete` counts as a gap of the same topic (feedback cannot tell the
   * nearest ticket's category, which the answer does not store). Absent: such a 👎 counts under
   * `gap.topicKey` if there is one, else nowhere.
   */
  readonly topic?: {
    readonly topicKey: string;
    readonly category: string;
    readonly terms: readonly string[];
  };
  /** The inquiry's topic and why it is a gap, when it is one (weak retrieval, nothing cited). */
  readonly gap?: {
    readonly topicKey: string;
    readonly category: string;
    readonly terms: readonly string[];
    readonly reason: GapReason;
    /** The scrubbed inquiry text and the owner's hash, unless examples are turned off. */
    readonly example?: {
      readonly text: string;
      readonly ownerHash: string;
      /**
       * Where the example came from, so a lead can draft knowledge from it once it is solved
       * (`findGapExample`). Kept server-side: the page's body never carries it. Absent: the
       * example is shown but offers no draft.
       */
      readonly source?: GapExampleSource;
    };
  };
}

/** The conversation owner and inquiry of a gap example, within the store's tenant. */
export interface GapExampleSource {
  /** The owner's user id (the tenant is the scope's): what loading the conversation needs. */
  readonly ownerUserId: string;
  readonly inquiryId: string;
}

/** A gap example as a lead's knowledge draft resolves its opaque id (`findGapExample`). */
export interface GapExampleOrigin extends GapExampleSource {
  readonly conversationId: string;
  readonly answerSeq: number;
  /** Staff marked a ticket as the solution of the inquiry (the latest verdict says so). */
  readonly solved: boolean;
}

/** What a feedback commit changes: the delta between the answer's previous and new verdict. */
export interface FeedbackInsight {
  /** The day of the answer the feedback is on (counts go to that day). */
  readonly answerDay: string;
  readonly conversationId: string;
  readonly answerSeq: number;
  /**
   * The new verdict. The stores count the delta from the verdict their own conditional swap on
   * the answer's item replaced — exact under races, and a repeated or older `next` (by
   * `updatedAt`) changes nothing (ADR 0022).
   */
  readonly next: AnswerFeedback;
  readonly citedIssueIds: readonly string[];
  /**
   * The answer's topic, so a 👎 with `irrelevant_tickets`/`incomplete` counts as a gap there.
   * Absent: the topic `recordChat` kept with the answer (the feedback route passes none).
   */
  readonly topic?: {
    readonly topicKey: string;
    readonly category: string;
    readonly terms: readonly string[];
  };
  /** The inquiry's scrubbed text: kept as a labelled query while a ticket is marked as the solution. */
  readonly inquiryText?: string;
  readonly ownerHash: string;
}

/** What staff did with an answer's e-mail draft (ADR 0023): one stored action, counts only. */
export interface MailDraftInsight {
  /**
   * The day of the answer (its turn's `createdAt`), where the counts go when the store kept no
   * day of its own for the answer (its `recordChat` day wins, so rates compare like with like).
   */
  readonly answerDay: string;
  readonly conversationId: string;
  readonly answerSeq: number;
  /** `copy` and `open_in_mail` accept the draft; `edit` and `refine` (a stored version) change it. */
  readonly action: 'copy' | 'open_in_mail' | 'edit' | 'refine';
  /** When it happened (ISO), kept as the answer's first-acceptance or first-change mark. */
  readonly at: string;
}

/** A labelled query of the feedback eval: an inquiry and the tickets staff marked as its solution. */
export interface SolvedInquiry {
  readonly text: string;
  readonly issueIds: readonly string[];
  readonly day: string;
}

/** The figures of one `npm run eval -- --from-feedback` run. */
export type EvaluationRun = NonNullable<Insights['evaluation']>;

export interface InsightsStore {
  recordChat(scope: InsightsScope, insight: ChatInsight): Promise<void>;
  /**
   * Applies the delta exactly once, also when feedback posts on one answer race (two tabs) or
   * one is sent again: the newest `next.updatedAt` is the answer's verdict.
   */
  recordFeedback(scope: InsightsScope, insight: FeedbackInsight): Promise<void>;
  /**
   * Counts one action on an answer's draft, and the answer once: its first copy or open makes it
   * an accepted answer, its first edit or refinement a changed one, decided by an atomic mark on
   * the answer's own item — two tabs copying the same answer at once count one accepted answer.
   */
  recordMailDraft(scope: InsightsScope, insight: MailDraftInsight): Promise<void>;
  recordCapture(
    scope: InsightsScope,
    event: { readonly day: string; readonly kind: 'draft' | 'published' | 'sync_waited' },
  ): Promise<void>;
  /** Removes every gap example and solved inquiry of the conversation (counts stay). */
  forgetConversation(scope: InsightsScope, conversationId: string): Promise<void>;
  listSolvedInquiries(scope: InsightsScope): Promise<readonly SolvedInquiry[]>;
  /**
   * The gap example an opaque id names (`draftFrom.exampleId`) with where it came from, for a
   * lead's knowledge draft; undefined when there is none (never recorded, forgotten with its
   * conversation, expired) or it was stored without its source (before sources were kept).
   */
  findGapExample(scope: InsightsScope, exampleId: string): Promise<GapExampleOrigin | undefined>;
  recordEvaluationRun(scope: InsightsScope, run: EvaluationRun): Promise<void>;
  /**
   * The page's body for the window ending today (UTC), read in O(days × topics) items. With
   * `catalog` (what {@link TicketCatalog} listed), "never retrieved" counts over the deployed
   * tickets and carries their number as `total`; without it, over the tickets seen retrieved
   * before, and `total` stays absent (the page then says the deployment cannot list its tickets).
   */
  readInsights(
    scope: InsightsScope,
    days: InsightsWindow,
    now: Date,
    options?: InsightsReadOptions,
  ): Promise<Insights>;
}

/** What a read of the page's body takes besides the aggregates (none of it a store read). */
export interface InsightsReadOptions {
  /** The canonical issue ids the Knowledge Base holds (`TicketCatalog.issueIds`). */
  readonly catalog?: readonly string[];
}

/**
 * The set of tickets the deployed Knowledge Base holds, for "never retrieved in 90 days"
 * (issue #28): in AWS the data source's document listing (`ListKnowledgeBaseDocuments`), locally
 * the local endpoint's answer to the same call. Restricted tickets are listed too: the AWS
 * listing carries no metadata to tell them apart, so both listings include them alike (ADR 0022).
 */
export interface TicketCatalog {
  /**
   * The canonical issue ids of the indexed ticket documents, or `undefined` when this deployment
   * cannot list them (no data source to list, or the listing failed: the adapter logs why). Never
   * rejects: a failed listing costs the page one figure, not the page.
   */
  issueIds(): Promise<readonly string[] | undefined>;
}

/**
 * How current each live-synced ticket system's knowledge is (`ticketSync`, ADR 0032): read from
 * the ticket sync's table (`functions/adapters/dynamodb/ticket-sync-store.ts`).
 */
export interface KnowledgeFreshness {
  read(now: Date): Promise<readonly SourceFreshness[]>;
}
