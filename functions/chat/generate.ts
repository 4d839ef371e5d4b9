import type { z } from 'zod';
import {
  type Answer,
  answerSchema,
  type DeliveredAnswer,
  MAX_RESULTS,
  modelTicketResultSchema,
  type TicketResult,
  todoActionSchema,
} from '../contract/answer.js';
import type { ChatEvent } from '../contract/chat-events.js';
import {
  DEFAULT_VENDOR_LINK_DOMAINS,
  findUnverifiedLinks,
  removeUnverifiedLinks,
} from '../contract/links.js';
import {
  canonicalIssueId,
  findTicketReferences,
  resolveIssueId,
} from '../contract/ticket-references.js';
import {
  type EndingCause,
  endingOf,
  type ModelCallFailure,
  streamForcedTool,
} from '../model-call/forced-tool.js';
import type { ToolInputInvalidElementEvent } from '../tool-input/tool-input-parser.js';
import { ChatModelError } from './errors.js';
import type { Log } from './log.js';
import type {
  ChatConfig,
  ChatModel,
  ChatModelRequest,
  ConversationStore,
  ConversationSummary,
  ModelUsage,
  Owner,
  Turn,
} from './ports.js';

/**
 * Generating the answer: the model's tool input streamed through the incremental parser into
 * `token` and grounded `ticket` events, stopped by staff or the time budget, and finished into a
 * valid answer whatever happened.
 */

/**
 * The chat an answer is generated for, as far as generation needs it (`run-chat.ts`'s `BegunChat`
 * is one): whose it is and which user turn it answers, for the stop flag, and the restricted
 * tickets retrieval removed, for the grounding log. Declared here so generation does not import
 * the pipeline that calls it.
 */
export interface GeneratingChat {
  readonly owner: Owner;
  readonly conversation: Pick<ConversationSummary, 'conversationId'>;
  readonly turn: Pick<Turn, 'seq'>;
  readonly restrictedIssueIds?: ReadonlySet<string>;
}

export interface GenerateWithStopDependencies {
  readonly store: ConversationStore;
  readonly model: ChatModel;
  readonly config: ChatConfig;
  readonly remainingTimeMs: () => number;
  /** Where failures and grounding drops are reported. */
  readonly log: Log;
}

/**
 * Generation that ends early when staff press stop for this answer (the flag is polled) or when the function's
 * time is nearly up. A stop keeps what streamed as `stopped`; running out of time is a
 * retryable failure, so the page offers to try again instead of looking deliberately stopped.
 */
export async function generateWithStop(
  begun: GeneratingChat,
  dependencies: GenerateWithStopDependencies,
  request: Omit<ChatModelRequest, 'signal'>,
  allowedIssueIds: ReadonlySet<string>,
  send: (event: ChatEvent) => void,
): Promise<GenerationOutcome> {
  const controller = new AbortController();
  let reason: StopCause | undefined;
  const poller = startStopPoller({
    isStopRequested: () =>
      // Its own answer's stop only: a stop names the user turn it answers, never a time, so a
      // late stop for the previous answer cannot reach this one.
      dependencies.store.isStopRequested(
        begun.owner,
        begun.conversation.conversationId,
        begun.turn.seq,
      ),
    remainingTimeMs: dependencies.remainingTimeMs,
    reserveMs: dependencies.config.remainingTimeReserveMs,
    intervalMs: dependencies.config.stopPollMs,
    onStop: (stopReason) => {
      reason = stopReason;
      controller.abort();
    },
  });
  try {
    const outcome = await generateAnswer({
      model: dependencies.model,
      request,
      allowedIssueIds,
      restrictedIssueIds: begun.restrictedIssueIds,
      allowedLinkDomains: dependencies.config.allowedLinkDomains,
      send,
      signal: controller.signal,
      log: dependencies.log,
    });
    if (outcome.status !== 'stopped' || reason !== 'timeout') return outcome;
    return {
      ...outcome,
      status: 'failed',
      failure: {
        code: 'timeout',
        message: 'The answer took too long and was cut off. Please try again.',
        retryable: true,
      },
    };
  } finally {
    poller.stop();
  }
}

export type GenerationStatus = 'complete' | 'truncated' | 'stopped' | 'failed';

/**
 * Why an answer is `truncated`: the model ran out of tokens, its tool input stopped being valid
 * JSON, or the stream broke off. The web app shows one notice for all three; this is for logs and
 * metrics.
 */
export type Truncation = 'max_tokens' | 'malformed_output' | 'interrupted';

export interface GenerationOutcome {
  readonly status: GenerationStatus;
  /** The validated answer (partial when truncated, stopped or failed). */
  readonly answer: DeliveredAnswer;
  /**
   * How many distinct ticket numbers the advice and mail draft cite without them being among the
   * inquiry's tickets (`answer.unverified_references`), kept here for metrics.
   */
  readonly unverifiedReferenceCount: number;
  /** How many distinct links the answer has outside the allow-list (`answer.unverified_links`). */
  readonly unverifiedLinkCount: number;
  /** Set when `status` is `truncated`. */
  readonly truncation?: Truncation;
  /** Set when `status` is `failed`: what the `error` event says. */
  readonly failure?: ModelCallFailure;
  /** Tokens as the model reported them (absent when the stream ended before its usage event). */
  readonly usage?: ModelUsage;
  /** What the generation took, from the model call on (`performance.now()` milliseconds). */
  readonly timing: {
    readonly modelMs: number;
    readonly firstTokenMs?: number;
    readonly firstTicketMs?: number;
  };
  /** Ticket cards shown, and cards grounding dropped by reason (for metrics). */
  readonly ticketsCited: number;
  readonly ticketsDropped: Readonly<Partial<Record<TicketDropReason, number>>>;
}

export interface GenerateAnswerInput {
  readonly model: ChatModel;
  readonly request: Omit<ChatModelRequest, 'signal'>;
  readonly allowedIssueIds: ReadonlySet<string>;
  /**
   * Tickets retrieval returned but removed as restricted: only to say why a card citing one was
   * dropped (they are not in `allowedIssueIds` either way).
   */
  readonly restrictedIssueIds?: ReadonlySet<string>;
  /**
   * Domains links may point to (with their subdomains); links elsewhere are removed from the mail
   * draft and the to-dos and listed in `unverified_links`. @default DEFAULT_VENDOR_LINK_DOMAINS
   */
  readonly allowedLinkDomains?: readonly string[];
  readonly send: (event: ChatEvent) => void;
  /**
   * Aborted by a stop request or the time budget; the answer is then `stopped`, and
   * `generateWithStop` (which owns the signal) turns a timeout into a failure.
   */
  readonly signal: AbortSignal;
  /** Where a stream failure that is no model error, and grounding drops, are reported. */
  readonly log: Log;
}

/**
 * Streams the model's tool input through the incremental parser: advice deltas become `token`
 * events (one per upstream fragment here; the SSE stream coalesces them), each grounded results element a `ticket` event the moment
 * its object closes. Never throws: every ending is an outcome.
 *
 * An answer that breaks off — `max_tokens`, invalid JSON, a stream error or a stream that just
 * ends — is `truncated` once advice has streamed: staff have read it, so the stored turn and
 * `result` keep exactly that (partial data is a state, not an exception). Before any advice there
 * is nothing to keep, and it is a `failed` answer whose `error` event says what happened. A model
 * that never calls the tool, and errors before the stream (throttling, rejection), always fail.
 */
export async function generateAnswer(input: GenerateAnswerInput): Promise<GenerationOutcome> {
  const tickets: TicketResult[] = [];
  const seen = new Set<string>();
  const dropped = new DroppedTickets();
  const { log } = input;
  let adviceStreamed = false;
  const startedAt = performance.now();
  let firstTokenAt: number | undefined;
  let firstTicketAt: number | undefined;

  const streamed = await streamForcedTool({
    model: input.model,
    request: input.request,
    signal: input.signal,
    parser: {
      textFields: ['general_advice'],
      arrayFields: { results: modelTicketResultSchema, todo_actions: todoActionSchema },
    },
    onEvent: (parsed) => {
      if (parsed.type === 'text' && parsed.field === 'general_advice') {
        input.send({ event: 'token', data: { content: parsed.delta } });
        adviceStreamed ||= parsed.delta !== '';
        if (adviceStreamed) firstTokenAt ??= performance.now();
      } else if (parsed.type === 'element' && parsed.field === 'results') {
        const grounded = groundTicket(parsed.value as TicketResult, input.allowedIssueIds);
        const issueId = (parsed.value as TicketResult).issue_id;
        if (!grounded) {
          const restricted = input.restrictedIssueIds?.has(issueId) ?? false;
          dropped.add(restricted ? 'restricted' : 'not_retrieved', issueId);
        } else if (seen.has(grounded.issue_id)) dropped.add('duplicate', issueId);
        else if (tickets.length >= MAX_RESULTS) dropped.add('over_limit', issueId);
        else {
          seen.add(grounded.issue_id);
          tickets.push(grounded);
          input.send({ event: 'ticket', data: grounded });
          firstTicketAt ??= performance.now();
        }
      } else if (parsed.type === 'invalid_element' && parsed.field === 'results') {
        dropped.addMalformed(parsed);
      }
    },
  });
  const { final, usage, streamError, fragments } = streamed;
  // A model failure the adapter translated is expected; anything else is a bug to look at,
  // even when staff keep a truncated answer.
  if (streamError && !(streamError.error instanceof ChatModelError)) {
    log.error('answer stream failed', { error: streamError.error });
  }

  const finishedAt = performance.now();
  dropped.log(log);
  const checked = removeUnverifiedAnswerLinks(
    finalizeAnswer(final.value, tickets),
    input.allowedLinkDomains ?? DEFAULT_VENDOR_LINK_DOMAINS,
  );
  const unverifiedReferences = findUnverifiedReferences(checked.answer, input.allowedIssueIds);
  const answer: DeliveredAnswer = {
    ...checked.answer,
    unverified_references: unverifiedReferences,
    unverified_links: checked.unverifiedLinks,
  };
  const outcome = (
    status: GenerationStatus,
    details: Pick<GenerationOutcome, 'truncation' | 'failure'> = {},
  ): GenerationOutcome => ({
    status,
    answer,
    unverifiedReferenceCount: unverifiedReferences.length,
    unverifiedLinkCount: checked.unverifiedLinks.length,
    ...details,
    ...(usage ? { usage } : {}),
    timing: {
      modelMs: finishedAt - startedAt,
      ...(firstTokenAt !== undefined ? { firstTokenMs: firstTokenAt - startedAt } : {}),
      ...(firstTicketAt !== undefined ? { firstTicketMs: firstTicketAt - startedAt } : {}),
    },
    ticketsCited: tickets.length,
    ticketsDropped: dropped.counts(),
  });
  const ending = endingOf(
    streamed,
    { arrived: fragments > 0, kept: adviceStreamed },
    { noun: 'answer' },
  );
  if (ending.status === 'complete') return outcome('complete');
  if (ending.cause === 'guardrail') {
    // Nothing of a blocked answer is kept (in async mode some advice may have streamed before
    // it was blocked).
    return {
      ...outcome('failed', { failure: ending.failure }),
      answer: { response_type: 'results', general_advice: '' },
      unverifiedReferenceCount: 0,
      unverifiedLinkCount: 0,
      ticketsCited: 0,
    };
  }
  // A stop request or the time budget: what streamed is kept (`generateWithStop` tells which).
  if (ending.cause === 'aborted') return outcome('stopped');
  return ending.status === 'partial'
    ? outcome('truncated', { truncation: TRUNCATIONS[ending.cause] })
    : outcome('failed', { failure: ending.failure });
}

/** Why an answer that broke off after its advice streamed is `truncated`. */
const TRUNCATIONS: Record<Exclude<EndingCause, 'guardrail' | 'aborted'>, Truncation> = {
  stream_error: 'interrupted',
  malformed: 'malformed_output',
  cut_off: 'interrupted',
  empty: 'interrupted',
  max_tokens: 'max_tokens',
  truncated: 'interrupted',
};

export type StopCause = 'requested' | 'timeout';

export interface StopPollerOptions {
  /** Asks the store whether staff pressed stop. Failures are ignored (the next poll retries). */
  readonly isStopRequested: () => Promise<boolean>;
  readonly remainingTimeMs: () => number;
  readonly reserveMs: number;
  readonly intervalMs: number;
  readonly onStop: (reason: StopCause) => void;
}

/**
 * Polls whether staff asked to stop this answer (`isStopRequested`) on a timer rather than per
 * fragment, so a stop lands even while the model is silent, and the store sees one read per
 * interval however fast fragments arrive. Lambda cannot see a client disconnect, so the stop
 * request and the time budget are the only ways out.
 */
export function startStopPoller(options: StopPollerOptions): { stop(): void } {
  let stopped = false;
  let inFlight = false;
  const fire = (reason: StopCause) => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    options.onStop(reason);
  };
  const timer = setInterval(() => {
    if (options.remainingTimeMs() < options.reserveMs) return fire('timeout');
    if (inFlight) return;
    inFlight = true;
    options
      .isStopRequested()
      .then((requested) => {
        if (requested) fire('requested');
      })
      .catch(() => undefined)
      .finally(() => {
        inFlight = false;
      });
  }, options.intervalMs);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

const fieldSchemas = answerSchema.shape;

/**
 * The answer from the parser's final (possibly partial) value: each field kept only if it is
 * valid on its own, `results` replaced by the grounded tickets already streamed, so `result`
 * never contains a ticket the browser did not get as a `ticket` event.
 */
export function finalizeAnswer(value: unknown, groundedResults: readonly TicketResult[]): Answer {
  const source = (typeof value === 'object' && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const pick = <K extends keyof typeof fieldSchemas>(
    key: K,
  ): z.infer<(typeof fieldSchemas)[K]> | undefined => {
    const parsed = fieldSchemas[key].safeParse(source[key]);
    return parsed.success ? (parsed.data as z.infer<(typeof fieldSchemas)[K]>) : undefined;
  };
  const question = pick('question');
  const responseType = pick('response_type') ?? (question ? 'clarification' : 'results');
  const answer: Answer = {
    response_type: responseType,
    general_advice: pick('general_advice') ?? '',
    question,
    options: pick('options'),
    results:
      groundedResults.length > 0 || responseType === 'results' ? [...groundedResults] : undefined,
    mail_draft: pick('mail_draft'),
    todo_actions: pick('todo_actions'),
    reasoning: pick('reasoning'),
  };
  // Every field was validated on its own, so this holds; the fallback keeps the promise that
  // finishing an answer never throws, whatever a future schema change does.
  const parsed = answerSchema.safeParse(dropUndefined(answer));
  return parsed.success
    ? parsed.data
    : { response_type: responseType, general_advice: answer.general_advice };
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}

/**
 * Grounding for free text: the ticket numbers the advice and the mail draft mention that are not
 * among this inquiry's retrieved or fetched tickets, each once, in order of appearance. Unlike a
 * ticket card, a sentence cannot be dropped, so these are flagged (the web app marks them as not
 * verified) rather than removed.
 */
export function findUnverifiedReferences(
  answer: Pick<Answer, 'general_advice' | 'mail_draft'>,
  allowedIssueIds: ReadonlySet<string>,
): string[] {
  const unverified = new Set<string>();
  for (const text of [answer.general_advice, answer.mail_draft ?? '']) {
    for (const { issueId } of findTicketReferences(text)) {
      if (resolveIssueId(issueId, allowedIssueIds) === undefined) unverified.add(issueId);
    }
  }
  return [...unverified];
}

const TODO_ACTION_MAX = todoActionSchema.maxLength ?? 500;

/**
 * Grounding for links: a link (URL or mail address, `functions/contract/links.ts`) whose domain
 * is not on the allow-list, or whose scheme is not `https:` or `mailto:`, never reaches the
 * requester — it is replaced by a placeholder in the mail draft and the to-dos. The advice has
 * already streamed and goes to staff only, so its links stay and the web app shows them as
 * unverified text. The clarification (question, options) and
 * the ticket cards (subject, summary, resolution) are shown to staff too, as plain text the app
 * never makes clickable, so they stay as written and are only listed. All of them, as written,
 * each once, in order (advice, mail draft, to-dos, question, options, cards), are
 * `unverifiedLinks`.
 */
export function removeUnverifiedAnswerLinks(
  answer: Answer,
  allowedLinkDomains: readonly string[],
): { answer: Answer; unverifiedLinks: string[] } {
  const unverified = new Set(findUnverifiedLinks(answer.general_advice, allowedLinkDomains));
  const clean = (text: string, maxLength = Number.POSITIVE_INFINITY) => {
    const { text: cleaned, removed } = removeUnverifiedLinks(text, allowedLinkDomains);
    for (const link of removed) unverified.add(link);
    // A placeholder may be longer than a short link; a to-do must stay within its schema.
    return cleaned.length > maxLength ? `${cleaned.slice(0, maxLength - 1)}…` : cleaned;
  };
  const checked: Answer = { ...answer };
  if (answer.mail_draft !== undefined) checked.mail_draft = clean(answer.mail_draft);
  if (answer.todo_actions !== undefined) {
    checked.todo_actions = answer.todo_actions.map((action) => clean(action, TODO_ACTION_MAX));
  }
  const shownAsText = [
    answer.question ?? '',
    ...(answer.options ?? []),
    ...(answer.results ?? []).flatMap((card) => [card.subject, card.summary, card.resolution]),
  ];
  for (const text of shownAsText) {
    for (const link of findUnverifiedLinks(text, allowedLinkDomains)) unverified.add(link);
  }
  return { answer: checked, unverifiedLinks: [...unverified] };
}

/**
 * Grounding: a cited ticket survives only if its issue id is one of the tickets retrieved or
 * fetched for this inquiry (restricted ones already removed). The model cannot invent a source,
 * and a ticket that appears only in history can never become one.
 */
export function groundTicket(
  ticket: TicketResult,
  allowedIssueIds: ReadonlySet<string>,
): TicketResult | undefined {
  const written = canonicalIssueId(ticket.issue_id);
  const issueId = written === undefined ? undefined : resolveIssueId(written, allowedIssueIds);
  return issueId === undefined ? undefined : { ...ticket, issue_id: issueId };
}

/**
 * Why grounding left a ticket card out: its id is not one ticket number (`malformed_id`), another
 * field failed the schema (`malformed_ticket`), it was not among the inquiry's tickets
 * (`not_retrieved`) or retrieval returned it as restricted (`restricted`), or it repeated a card
 * (`duplicate`) or came after {@link MAX_RESULTS} (`over_limit`).
 */
export type TicketDropReason =
  | 'malformed_id'
  | 'malformed_ticket'
  | 'not_retrieved'
  | 'restricted'
  | 'duplicate'
  | 'over_limit';

/**
 * The cards one answer lost, by reason, logged as one structured line: a model that drifts from
 * the schema, or cites what it was not given, otherwise loses cards without a trace. The counts
 * also reach the chat report (`ticketsDropped`) and its metric; only this line names the ids.
 */
class DroppedTickets {
  private readonly byReason = new Map<TicketDropReason, string[]>();

  add(reason: TicketDropReason, issueId: string): void {
    const issueIds = this.byReason.get(reason) ?? [];
    issueIds.push(issueId);
    this.byReason.set(reason, issueIds);
  }

  addMalformed(event: Pick<ToolInputInvalidElementEvent, 'value' | 'issues'>): void {
    const idIssue = event.issues.some((issue) => issue.path[0] === 'issue_id');
    const written = (event.value as { issue_id?: unknown } | null)?.issue_id;
    // As written, cut short: it is the model's text, not a trusted id.
    this.add(
      idIssue ? 'malformed_id' : 'malformed_ticket',
      String(JSON.stringify(written)).slice(0, 40),
    );
  }

  counts(): Partial<Record<TicketDropReason, number>> {
    return Object.fromEntries(
      [...this.byReason].map(([reason, issueIds]) => [reason, issueIds.length]),
    );
  }

  log(log: Log): void {
    if (this.byReason.size === 0) return;
    log.info('grounding dropped ticket cards', {
      dropped: this.counts(),
      issueIds: Object.fromEntries(this.byReason),
    });
  }
}
