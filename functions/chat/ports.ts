import type { DeliveredAnswer } from '../contract/answer.js';
import type { AttachmentReading, AttachmentRef } from '../contract/attachments.js';
import type { TurnStatus } from '../contract/chat-events.js';
import type {
  AnswerFeedback,
  ConversationSummary as ConversationSummaryBody,
  Turn,
  TurnKind,
  TurnRole,
  TurnUsage,
} from '../contract/conversations.js';
import type { StreamErrorCode } from '../contract/errors.js';
import type { PublishedKnowledge } from '../contract/knowledge.js';
import type { MailDraftAction, MailDraftVersion } from '../contract/mail-draft.js';
import type { AnswerNotices } from '../contract/surges.js';
import type { InquiryIntent } from './inquiry-rules.js';

/**
 * The chat core's ports: what it needs from the conversation store, the model and the Knowledge
 * Base, who the caller is, and its tunables. Adapters in `functions/adapters/` implement them;
 * tests pass in-memory ones. Nothing here imports AWS.
 */

export type { Turn, TurnKind, TurnRole, TurnUsage };

/** The stored conversation: the REST summary plus what only the server sees. */
export interface ConversationSummary extends Readonly<ConversationSummaryBody> {
  /**
   * The inquiry awaiting a reply to its clarification, if any: the only inquiry a message can
   * continue (see `placeUserTurn`).
   */
  readonly openInquiryId?: string;
  /** The inquiry of the latest user message (so a late answer cannot reopen an older inquiry). */
  readonly latestInquiryId?: string;
  /**
   * The user turn whose answer a request is generating — set by every user turn that will be
   * answered, with or without `clientMessageId`; cleared by the answer to that turn — and the end
   * of its lease (ISO), renewed while the answer is written (`renewGeneration`): a page loaded
   * meanwhile shows the answer as in flight until it is stored or the lease lapsed, and a
   * regenerate or edit of that turn is refused (`answer_in_progress`).
   */
  readonly answering?: { readonly seq: number; readonly inquiryId: string; readonly until: string };
  /** Inquiries published as knowledge tickets (ADR 0011), oldest first. */
  readonly knowledge?: readonly PublishedKnowledge[];
}

export interface ConversationWithTurns {
  readonly conversation: ConversationSummary;
  readonly turns: readonly Turn[];
}

export interface AppendUserTurnInput {
  /** Absent: a new conversation is created in the same commit, titled from `text`. */
  readonly conversationId?: string;
  readonly text: string;
  /** Makes a retried POST idempotent: the same id never yields a second turn. */
  readonly clientMessageId?: string;
  /** `new` starts a new inquiry even while a clarification awaits its reply. @default 'continue' */
  readonly inquiry?: InquiryIntent;
  /**
   * Regenerate or edit: the seq of the latest user turn, which this one replaces (same inquiry,
   * same kind; `placeSupersedingTurn` decides it against the committed state).
   */
  readonly supersedes?: number;
  /**
   * The caller will generate the answer: the same commit marks the conversation `answering`
   * this turn until `until`, and with `clientMessageId` gives the caller the message's
   * generation claim (see `claimGeneration`). Both are a lease the caller renews
   * (`renewGeneration`) while it generates.
   */
  readonly generation?: GenerationClaim;
  /** The files sent with the message (ADR 0030): what the turn keeps of each. */
  readonly attachments?: readonly AttachmentRef[];
}

/**
 * Who is generating the answer to one message, and until when their lease runs
 * (`ChatConfig.generationLeaseMs` ahead, renewed while they generate). One claim per
 * `clientMessageId`: a retry sent while the first copy is still answering finds it held and
 * waits for that answer instead of starting a second model call; once a holder stopped renewing
 * (it crashed), its lease lapses and a retry takes over.
 */
export interface GenerationClaim {
  /** Unique per request. */
  readonly holder: string;
  readonly until: Date;
}

/** One renewal of a generation lease: the claim's holder moves `until` on. */
export interface GenerationRenewal extends GenerationClaim {
  readonly conversationId: string;
  /** The user turn being answered: its `answering` mark is renewed. */
  readonly userSeq: number;
  /** The message's claim on its idempotency marker is renewed too. */
  readonly clientMessageId?: string;
}

export interface AppendAssistantTurnInput {
  readonly conversationId: string;
  readonly inquiryId: string;
  readonly kind: 'clarification' | 'answer';
  /**
   * The user turn this answers: its commit clears `answering` if it still names that turn (an
   * answer to an older message leaves a newer one in flight). Absent: any answer of the inquiry
   * being answered clears it.
   */
  readonly answersSeq?: number;
  readonly text: string;
  readonly result?: DeliveredAnswer;
  /** Only a `complete` clarification keeps its inquiry open (`openInquiryAfterAssistantTurn`). */
  readonly status: TurnStatus;
  /** The model that wrote the answer (stored with the turn, so a reload can say which). */
  readonly modelId?: string;
  /** Tokens and timings, stored with the turn (`turns[].usage`). */
  readonly usage?: TurnUsage;
  /** What the vision step read from the answered message's images (ADR 0030). */
  readonly attachmentReading?: AttachmentReading;
  /** The surge notice and known issues the answer's stream sent (ADR 0033), bounded. */
  readonly notices?: AnswerNotices;
}

export interface AppendResult {
  readonly conversation: ConversationSummary;
  readonly turn: Turn;
  /** True when `clientMessageId` matched an earlier turn, which is returned instead of a new one. */
  readonly duplicate: boolean;
}

export interface ListConversationsResult {
  readonly items: readonly ConversationSummary[];
  /** Opaque; pass back as `cursor` for the next page. */
  readonly nextCursor?: string;
}

/**
 * The conversation memory. Every method takes the owner from the verified identity; another
 * owner's conversation behaves exactly like a missing one (`ConversationNotFoundError`).
 */
export interface ConversationStore {
  appendUserTurn(owner: Owner, input: AppendUserTurnInput): Promise<AppendResult>;
  appendAssistantTurn(owner: Owner, input: AppendAssistantTurnInput): Promise<AppendResult>;
  /** The conversation (consistent read) — cheap; use for ETag/304. */
  getConversation(owner: Owner, conversationId: string): Promise<ConversationSummary>;
  /** Conversation and all turns in `seq` order, at one consistent version. */
  loadConversation(owner: Owner, conversationId: string): Promise<ConversationWithTurns>;
  /** Newest activity first; with `query`, those whose title or messages contain all its words. */
  listConversations(
    owner: Owner,
    options?: { limit?: number; cursor?: string; query?: string },
  ): Promise<ListConversationsResult>;
  renameConversation(
    owner: Owner,
    conversationId: string,
    title: string,
  ): Promise<ConversationSummary>;
  deleteConversation(owner: Owner, conversationId: string): Promise<void>;
  /**
   * Stores the owner's feedback on the answer turn `seq`, replacing any earlier one; bumps
   * `version` (the detail changed) but not `updatedAt` (the sidebar order), like a rename.
   * `TurnNotFoundError` when `seq` is no answer turn of this conversation. What the feedback may
   * name (`helpfulTicketIds` among the answer's cards) is the caller's check.
   */
  recordFeedback(
    owner: Owner,
    conversationId: string,
    seq: number,
    feedback: AnswerFeedback,
  ): Promise<ConversationSummary>;
  /**
   * Changes what the answer turn `seq` holds of its mail draft (ADR 0023), in a versioned commit
   * like feedback (`version` bumps, `updatedAt` does not): appends a version (an edit or a
   * refinement) to `mailDraftVersions`, or counts an action (`copy` → `mailDraftCopies`,
   * `open_in_mail` → `mailDraftMailOpens`). `TurnNotFoundError` when `seq` is no answer turn;
   * `MailDraftFullError` when it already has `maxVersions` versions, decided in the commit, so two
   * concurrent edits cannot both pass the limit. A version's number is assigned in the same
   * commit, so concurrent versions never share one. The version's text and checks are the caller's.
   */
  recordMailDraft(
    owner: Owner,
    conversationId: string,
    seq: number,
    change: MailDraftChange,
  ): Promise<MailDraftRecorded>;
  /**
   * Records that an inquiry became the knowledge ticket `published.issueId`, in a versioned
   * commit (`version` bumps, `updatedAt` does not). At most one ticket per inquiry: a second
   * publish of the same inquiry fails with `KnowledgeAlreadyPublishedError`, decided on the row
   * the commit is conditioned on, so two concurrent publishes cannot both succeed.
   */
  recordPublishedKnowledge(
    owner: Owner,
    conversationId: string,
    published: PublishedKnowledge,
  ): Promise<ConversationSummary>;
  /**
   * Asks the generation of the answer to user turn `userSeq` to stop (polled by
   * `isStopRequested`); no other answer sees it. Does not bump `version`. `TurnNotFoundError`
   * when the conversation has no turn `userSeq` yet — a stop never waits for a later message.
   */
  requestStop(owner: Owner, conversationId: string, userSeq: number): Promise<void>;
  /** True when a stop was requested for the answer to user turn `userSeq`. */
  isStopRequested(owner: Owner, conversationId: string, userSeq: number): Promise<boolean>;
  /**
   * Takes the generation claim of a stored message when nobody holds it or its holder's lease
   * lapsed; false while another request holds it. Only for a `clientMessageId` that was stored.
   * A claimant that takes over also renews the turn's `answering` mark (`renewGeneration`).
   */
  claimGeneration(owner: Owner, clientMessageId: string, claim: GenerationClaim): Promise<boolean>;
  /**
   * The holder's heartbeat: moves its lease on to `renewal.until` — the claim on the marker
   * (only while `holder` still has it) and the conversation's `answering` mark (only while it
   * still names `userSeq`; never re-created once the answer cleared it). False when the claim is
   * no longer this holder's (or, without `clientMessageId`, the mark is gone). Does not bump
   * `version`.
   */
  renewGeneration(owner: Owner, renewal: GenerationRenewal): Promise<boolean>;
  /** Gives the claim up (after the answer was recorded); a claim someone else holds is left alone. */
  releaseGeneration(owner: Owner, clientMessageId: string, holder: string): Promise<void>;
}

/** One change to an answer's mail draft: see `ConversationStore.recordMailDraft`. */
export type MailDraftChange =
  | {
      readonly kind: 'version';
      readonly version: MailDraftVersion;
      /** At most this many versions besides the original (`MAX_MAIL_DRAFT_VERSIONS`). */
      readonly maxVersions: number;
      /**
       * How many versions the caller saw stored: the store's first guess of the count it appends
       * to (a store that finds more stored meanwhile counts again; the number is the store's).
       */
      readonly versionsSeen: number;
    }
  | { readonly kind: 'action'; readonly action: MailDraftAction };

/**
 * The conversation after a mail draft change and, for a version, its number as the ‹ › counter
 * shows it (the original is 1, the first stored version 2): the count the commit appended to.
 */
export type MailDraftRecorded = ConversationSummary & { readonly versionNumber?: number };

/**
 * Who a conversation belongs to. Always derived from the verified identity (Cognito token, or the
 * dev header in local mode) — never from a request body.
 */
export interface Owner {
  readonly tenantId: string;
  readonly userId: string;
}

/** The partition key of an owner's conversations: `tenantId#userId`. */
export function ownerKey(owner: Owner): string {
  return `${owner.tenantId}#${owner.userId}`;
}

export interface ChatMessage {
  readonly role: 'user' | 'assistant';
  readonly text: string;
  /** User messages: screenshots the model sees before the text (ADR 0030). */
  readonly images?: readonly ChatImage[];
}

/** An image as a model message carries it (ConverseStream `image` block). */
export interface ChatImage {
  readonly format: 'png' | 'jpeg' | 'gif' | 'webp';
  readonly bytes: Uint8Array;
  readonly width: number;
  readonly height: number;
}

export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the tool input. */
  readonly inputSchema: Record<string, unknown>;
}

/**
 * Where a request asks the model to cache its prompt prefix (Bedrock Converse `cachePoint`, ADR
 * 0009). The prefix runs in the model's order — tool definitions, system prompt, messages — up
 * to each checkpoint.
 */
export interface CacheCheckpoints {
  /** After the tool definitions. */
  readonly afterTool: boolean;
  /** After the system prompt. */
  readonly afterSystem: boolean;
  /** After `messages[afterMessage]`: the last message of the history before the new one. */
  readonly afterMessage?: number;
}

/** How the core may use prompt caching for the configured model (from its capability table). */
export interface PromptCachePolicy {
  /** Tokens a checkpoint's prefix must add since the previous checkpoint to be cached. */
  readonly minimumTokens: number;
  /** Whether the model takes a checkpoint after the tool definitions. */
  readonly cacheTools: boolean;
}

export interface ChatModelRequest {
  readonly system: string;
  readonly messages: readonly ChatMessage[];
  /** The model is forced to call this tool; its input is the answer. */
  readonly tool: ToolDefinition;
  readonly maxTokens: number;
  /** Absent: no prompt caching, and the request is exactly what it was before caching existed. */
  readonly cacheCheckpoints?: CacheCheckpoints;
  readonly signal?: AbortSignal;
}

/** Why the model stopped; `guardrail_intervened`: a Bedrock Guardrail blocked the input or output. */
export type StopReason =
  | 'end_turn'
  | 'tool_use'
  | 'max_tokens'
  | 'stop_sequence'
  | 'guardrail_intervened'
  | 'other';

export type ChatModelEvent =
  | { readonly type: 'tool_input'; readonly fragment: string }
  | { readonly type: 'stop'; readonly reason: StopReason }
  | ({ readonly type: 'usage' } & ModelUsage);

/**
 * Tokens as the model reports them. With prompt caching, `inputTokens` counts only what was
 * neither read from nor written to the cache (Bedrock `TokenUsage`); the cache counts are
 * present when the model reported them.
 */
export interface ModelUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
}

/** A streaming model behind a forced tool; the Bedrock ConverseStream adapter implements it. */
export interface ChatModel {
  stream(request: ChatModelRequest): AsyncIterable<ChatModelEvent>;
}

/** A past ticket as retrieved from the Knowledge Base (one chunk of its document). */
export interface RetrievedTicket {
  readonly issueId: string;
  readonly subject: string;
  readonly category?: string;
  readonly status?: string;
  readonly createdAt?: string;
  readonly restricted: boolean;
  /**
   * The ticket's desk (`desk` in its sidecar, ADR 0029); absent when the sidecar names none,
   * which reaches nobody (the Knowledge Base filter cannot match a missing key either).
   */
  readonly desk?: string;
  /** The chunk text as stored in the Knowledge Base. */
  readonly text: string;
  readonly score: number;
  readonly uri?: string;
}

export interface RetrieveOptions {
  readonly limit: number;
  /**
   * The desks the caller may retrieve (ADR 0029; `all` is always among them): the Knowledge Base
   * filter keeps to them, and the core drops anything else that comes back.
   */
  readonly desks: readonly string[];
  readonly signal?: AbortSignal;
}

/** Knowledge Base access as the core needs it; the Bedrock adapter implements it. */
export interface Retriever {
  /**
   * Similar tickets for the current inquiry's text. Must already exclude restricted tickets and
   * those of desks outside `options.desks`.
   */
  search(query: string, options: RetrieveOptions): Promise<RetrievedTicket[]>;
  /** Tickets referenced by number (`#1234`), fetched by metadata filter (restricted and desks as `search`). */
  fetchByIssueIds(
    issueIds: readonly string[],
    options: RetrieveOptions,
  ): Promise<RetrievedTicket[]>;
}

/**
 * Tunables of the chat pipeline: the deployment's settings (`functions/settings/`, where their
 * defaults are), and the constants of {@link defaultChatConfig}.
 */
export interface ChatConfig {
  /** Chunks asked from the Knowledge Base per inquiry (`NUMBER_OF_RESULTS`). */
  readonly numberOfResults: number;
  /** Input + output tokens one user may spend per UTC day; 0 turns the budget off (`DAILY_TOKEN_BUDGET`). */
  readonly dailyTokenBudget: number;
  /**
   * Expand the retrieval query with the bilingual IT glossary (`retrieval.ts`), so a
   * question in one language finds tickets in the other (`QUERY_EXPANSION`).
   */
  readonly queryExpansion: boolean;
  /** Output tokens the model may spend on one answer; beyond them it is truncated. */
  readonly maxTokens: number;
  /** Characters the archive section may use. */
  readonly archiveBudget: number;
  /** How often generation asks whether its answer was stopped. */
  readonly stopPollMs: number;
  /**
   * How long a generation claim (and the `answering` mark) lasts without renewal; the holder
   * renews it every third of this while it generates, so a crashed holder's claim passes to a
   * retry after about this long.
   */
  readonly generationLeaseMs: number;
  /** Stop generating when less than this much of the function's time remains. */
  readonly remainingTimeReserveMs: number;
  /** The model answers come from; sent in `meta` and stored with each assistant turn. */
  readonly modelId: string;
  /** Prompt caching for this model; absent = off (`PROMPT_CACHING`, ADR 0009). @default undefined */
  readonly promptCache?: PromptCachePolicy;
  /**
   * Domains answer links may point to, subdomains included (`ALLOWED_LINK_DOMAINS`); links
   * elsewhere are removed from the mail draft and to-dos (`functions/contract/links.ts`).
   * @default DEFAULT_VENDOR_LINK_DOMAINS
   */
  readonly allowedLinkDomains?: readonly string[];
}

/**
 * The chat's constants: no deployment varies them (tests shorten the stop poll and the lease
 * through the API's `timings`). Advice, cards, mail draft and to-dos of a long answer fit in
 * 8192 output tokens.
 */
export const defaultChatConfig: Omit<
  ChatConfig,
  'modelId' | 'numberOfResults' | 'dailyTokenBudget' | 'queryExpansion'
> = {
  maxTokens: 8192,
  archiveBudget: 3000,
  stopPollMs: 1000,
  generationLeaseMs: 30_000,
  remainingTimeReserveMs: 20_000,
};

/** How a chat ended, as metrics count it. */
export type ChatOutcome =
  | 'complete'
  | 'clarification'
  | 'truncated'
  | 'stopped'
  | 'failed'
  | 'replayed';

/**
 * What one chat did, for metrics and the request log: ids, how it ended, timings (ms from the
 * request unless named per step), tokens, and what grounding did. Never message text.
 */
export interface ChatReport {
  readonly owner: Owner;
  readonly conversationId: string;
  readonly inquiryId: string;
  readonly modelId: string;
  readonly outcome: ChatOutcome;
  /** The `error` event's code when the chat failed. */
  readonly failureCode?: StreamErrorCode;
  readonly durationMs: number;
  readonly timeToFirstTokenMs?: number;
  readonly timeToFirstTicketMs?: number;
  readonly retrievalMs?: number;
  readonly modelMs?: number;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  readonly cacheReadInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
  readonly ticketsRetrieved: number;
  readonly ticketsCited: number;
  readonly ticketsDropped: number;
  readonly restrictedFiltered: number;
  readonly unverifiedReferences: number;
  /** Distinct links outside the allow-list (`unverified_links`); never the links themselves. */
  readonly unverifiedLinks: number;
  /** Heartbeat comments the stream carried (added by the API layer, which owns the stream). */
  readonly heartbeatsSent?: number;
  /** The stored assistant turn's seq (what feedback names); absent when none was stored. */
  readonly answerSeq?: number;
  /** Canonical issue ids of the answer's cards, in card order (insights, ADR 0022). */
  readonly citedIssueIds?: readonly string[];
  /**
   * The Knowledge Base's subject of each cited card's ticket, by issue id (insights' "what
   * helped", ADR 0022): published ticket text, not the staff member's or the model's; the
   * telemetry never logs it.
   */
  readonly citedSubjects?: Readonly<Record<string, string>>;
  /** The stored answer has a non-empty `mail_draft` staff can copy or send (insights, ADR 0023). */
  readonly hasMailDraft?: boolean;
  /** Issue ids retrieved for the inquiry, restricted ones removed, best first. */
  readonly retrievedIssueIds?: readonly string[];
  /** The best retrieval score; absent when nothing was retrieved. */
  readonly bestScore?: number;
  /** The category of the best-scoring retrieved ticket, when it has one. */
  readonly nearestCategory?: string;
}

/**
 * Where the core hands each finished chat for the service-desk insights (ADR 0022), with the
 * inquiry's own text, which the report never carries. The implementation never throws and
 * bounds its own time; the core awaits it after the answer's last event was sent.
 */
export interface ChatInsights {
  chatFinished(report: ChatReport, inquiry: { readonly text: string }): Promise<void>;
}

/** Where the core reports each finished chat; the API layer publishes it as metrics and a log line. */
export interface ChatTelemetry {
  chatFinished(report: ChatReport): void;
}
