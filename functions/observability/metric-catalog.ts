/**
 * The chat metrics the API function publishes (CloudWatch embedded metric format, through
 * Powertools Metrics) and the stack's alarms and dashboard read: one declaration, so a renamed
 * metric cannot silently orphan an alarm. Namespace `ServiceDeskAssistant`, dimension `service`
 * = `service-desk-api` (Powertools' default dimension).
 */
export const METRICS_NAMESPACE = 'ServiceDeskAssistant';
export const METRICS_SERVICE = 'service-desk-api';

export const chatMetrics = {
  /** From the request to the first advice token on the wire (ms). */
  timeToFirstToken: { name: 'TimeToFirstToken', unit: 'Milliseconds' },
  /** From the request to the first ticket card (ms). */
  timeToFirstTicket: { name: 'TimeToFirstTicket', unit: 'Milliseconds' },
  /** Knowledge Base Retrieve for the inquiry (ms). */
  retrievalLatency: { name: 'RetrievalLatency', unit: 'Milliseconds' },
  /** ConverseStream, from the call to the end of the stream (ms). */
  modelLatency: { name: 'ModelLatency', unit: 'Milliseconds' },
  /** Input tokens neither read from nor written to the prompt cache. */
  inputTokens: { name: 'InputTokens', unit: 'Count' },
  outputTokens: { name: 'OutputTokens', unit: 'Count' },
  /** Input tokens read from the prompt cache (only when prompt caching is on, ADR 0009). */
  cacheReadInputTokens: { name: 'CacheReadInputTokens', unit: 'Count' },
  /** Input tokens written to the prompt cache (only when prompt caching is on). */
  cacheWriteInputTokens: { name: 'CacheWriteInputTokens', unit: 'Count' },
  /** From the per-model price table (`model-prices.ts`, cache reads and writes at their prices), in US dollars. */
  estimatedCost: { name: 'EstimatedCostUSD', unit: 'None' },
  /**
   * Chats whose tokens are known but whose model has no price (`modelPrices` deploy setting): the
   * cost metric is missing for them, and this says so instead of the sum quietly shrinking.
   */
  costUnknown: { name: 'CostUnknown', unit: 'Count' },
  ticketsCited: { name: 'TicketsCited', unit: 'Count' },
  /** Cards grounding dropped (not retrieved, malformed id, restricted, duplicate, over limit). */
  ticketsDropped: { name: 'TicketsDroppedByGrounding', unit: 'Count' },
  /** Restricted tickets retrieval returned and the core removed (should stay 0: the filter holds). */
  restrictedFiltered: { name: 'RestrictedTicketsFiltered', unit: 'Count' },
  /** Ticket numbers in advice or mail draft that were not retrieved (`unverified_references`). */
  unverifiedReferences: { name: 'UnverifiedReferences', unit: 'Count' },
  /** Links outside the allow-list in an answer (`unverified_links`; ADR 0013). */
  unverifiedLinks: { name: 'UnverifiedLinks', unit: 'Count' },
  heartbeats: { name: 'HeartbeatsSent', unit: 'Count' },
  /** One per chat, by outcome: `ChatComplete`, `ChatClarification`, `ChatTruncated`, … */
  outcome: {
    complete: { name: 'ChatComplete', unit: 'Count' },
    clarification: { name: 'ChatClarification', unit: 'Count' },
    truncated: { name: 'ChatTruncated', unit: 'Count' },
    stopped: { name: 'ChatStopped', unit: 'Count' },
    failed: { name: 'ChatFailed', unit: 'Count' },
    replayed: { name: 'ChatReplayed', unit: 'Count' },
  },
  /** Failed chats whose model call was throttled (`model_throttled`). */
  modelThrottled: { name: 'ModelThrottled', unit: 'Count' },
  /** Failed chats whose model call failed otherwise (rejected, unavailable, stream failed, malformed). */
  modelErrors: { name: 'ModelErrors', unit: 'Count' },
} as const;

/**
 * Published per feedback post (`POST …/turns/{seq}/feedback`). Up and Down sum to the verdicts
 * standing (a changed verdict is −1 on the old rating): helpful rate = Up / (Up + Down).
 */
export const feedbackMetrics = {
  up: { name: 'FeedbackUp', unit: 'Count' },
  down: { name: 'FeedbackDown', unit: 'Count' },
  /** Ticket cards marked "this solved it" in the post. */
  helpfulTickets: { name: 'HelpfulTicketsMarked', unit: 'Count' },
} as const;

/**
 * Knowledge capture (ADR 0011): per draft, whether it came out publishable; per publish, the
 * ticket and whether its sync had to wait (a ticket searchable only after the next sync).
 */
export const knowledgeMetrics = {
  draftsComplete: { name: 'KnowledgeDraftsComplete', unit: 'Count' },
  draftsIncomplete: { name: 'KnowledgeDraftsIncomplete', unit: 'Count' },
  published: { name: 'KnowledgeTicketsPublished', unit: 'Count' },
  syncPending: { name: 'KnowledgeSyncPending', unit: 'Count' },
  /**
   * Per run of the sync catch-up that finds a sync owed: seconds since it was first owed (the
   * longest a published ticket has waited to become searchable). Alarmed above an hour.
   */
  syncOwedSeconds: { name: 'KnowledgeSyncOwedSeconds', unit: 'Seconds' },
} as const;

/**
 * The e-mail draft's acceptance (ADR 0023), per action on an answer's draft. Each action's count
 * (copies, opens in the mail client, edits, refinements), and answers counted once: the first
 * copy or open of an answer's draft is one accepted answer, its first edit or refinement one
 * changed answer — so acceptance rate ≈ MailDraftAnswersAccepted / answers with a draft. Changed
 * answers include drafts edited but never sent, so Changed / Accepted can pass 100 %; the
 * insights page's edit rate (of accepted answers, counted exactly on the Insights table, ADR
 * 0022) is the one to read. These counts are decided from the turn as loaded, so two tabs
 * copying one answer at the same moment can count it accepted twice here.
 */
export const mailDraftMetrics = {
  copies: { name: 'MailDraftCopies', unit: 'Count' },
  mailOpens: { name: 'MailDraftMailOpens', unit: 'Count' },
  edits: { name: 'MailDraftEdits', unit: 'Count' },
  refinements: { name: 'MailDraftRefinements', unit: 'Count' },
  /** A refinement that stored nothing (the model failed, the draft broke off or was full). */
  refineFailures: { name: 'MailDraftRefineFailures', unit: 'Count' },
  answersAccepted: { name: 'MailDraftAnswersAccepted', unit: 'Count' },
  answersChanged: { name: 'MailDraftAnswersChanged', unit: 'Count' },
} as const;

/**
 * Service-desk insights (ADR 0022): an aggregate write that failed or timed out. The event
 * itself (chat, feedback, publish, delete) stood; its counts on the insights page are missing.
 */
export const insightsMetrics = {
  writeFailed: { name: 'InsightsWriteFailed', unit: 'Count' },
} as const;

/**
 * The deployed ticket sync (ADR 0032), per run of a source, with the dimensions `service` and
 * `source` (the `ticketSync` entry's id); skips add `reason`, personal data `kind`. The lag is
 * how far the source's knowledge is behind (now − the instant every earlier change was written);
 * the seconds since the last success grow on every failed run.
 */
export const ticketSyncMetrics = {
  added: { name: 'TicketSyncAdded', unit: 'Count' },
  changed: { name: 'TicketSyncChanged', unit: 'Count' },
  removed: { name: 'TicketSyncRemoved', unit: 'Count' },
  unchanged: { name: 'TicketSyncUnchanged', unit: 'Count' },
  /** Per reason (`reason` dimension: notResolved, malformed, duplicate, …). */
  skipped: { name: 'TicketSyncSkipped', unit: 'Count' },
  /** Placeholders put in, per kind of personal data (`kind` dimension). */
  personalDataReplaced: { name: 'TicketSyncPersonalDataReplaced', unit: 'Count' },
  lag: { name: 'TicketSyncLagSeconds', unit: 'Seconds' },
  secondsSinceSuccess: { name: 'TicketSyncSecondsSinceSuccess', unit: 'Seconds' },
  failures: { name: 'TicketSyncFailures', unit: 'Count' },
  /** The system refused the credentials (401/403): alarmed at once. */
  authFailures: { name: 'TicketSyncAuthFailures', unit: 'Count' },
} as const;
