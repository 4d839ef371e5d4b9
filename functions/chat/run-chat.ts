import type { ChatAttachments } from '../attachments/ports.js';
import {
  type LoadedAttachments,
  loadAttachments,
  readAttachments,
  readingText,
} from '../attachments/read-attachments.js';
import type { AttachmentReading, AttachmentRef } from '../contract/attachments.js';
import type { ChatEvent, KbChunk } from '../contract/chat-events.js';
import type { ChatRequest } from '../contract/chat-request.js';
import { detectLanguage } from '../contract/language.js';
import type { AnswerNotices, SurgeNotice } from '../contract/surges.js';
import type { ModelCall } from '../model-call/open-model-call.js';
import { answerNoticesOf } from '../surges/answer-notices.js';
import type { KnownIssuesRead, SurgeCheck } from '../surges/surge-check.js';
import { ClientMessageIdReusedError, StoreUnavailableError } from './errors.js';
import { type GenerationOutcome, generateWithStop } from './generate.js';
import { keepGenerationLease, leaseFrom } from './generation-lease.js';
import {
  currentVersions,
  parseTicketReferences,
  splitInquiries,
  titleFromText,
} from './inquiry-rules.js';
import type { Log } from './log.js';
import { buildModelRequest } from './model-request.js';
import type {
  AppendResult,
  ChatConfig,
  ChatInsights,
  ChatModel,
  ChatReport,
  ChatTelemetry,
  ConversationStore,
  ConversationWithTurns,
  GenerationClaim,
  Owner,
  RetrievedTicket,
  Retriever,
  Turn,
  TurnUsage,
} from './ports.js';
import { attachToEarlierCopy, recordAnswer, storeUnavailableFailure } from './record-replay.js';
import { fetchReferencedTickets, retrieveTickets, toRetrievalQuery } from './retrieval.js';

/**
 * Running one chat: `beginChat` does what must succeed before the first byte (the user turn is
 * recorded, retrieval starts), `streamChat` everything after it, ending in a stored assistant turn
 * and one `result` or `error` event.
 */

export interface BegunChat extends AppendResult {
  readonly owner: Owner;
  /** The desks the caller may retrieve (ADR 0029): every retrieval of this chat keeps to them. */
  readonly desks: readonly string[];
  readonly startedAt: string;
  /** `performance.now()` when the request began: the origin of the chat's timings. */
  readonly startedAtMs: number;
  /** Retrieval already under way for a brand-new conversation (its inquiry can only be this message). */
  readonly earlySearch?: Promise<RetrievedTicket[]>;
  /**
   * The generation lease this request asked for (every request: it marks the turn `answering`,
   * and with a `clientMessageId` it is the message's claim). A new message holds it from the
   * commit on; a duplicate only once `attachToEarlierCopy` took it over.
   */
  readonly generation?: GenerationClaim;
  /**
   * Tickets retrieval or fetching returned marked restricted (and that were removed): kept only
   * so grounding can say why it dropped a card citing one.
   */
  readonly restrictedIssueIds?: Set<string>;
}

/**
 * A begun chat with its model call, opened at admission (`admitChat` in `chat-route.ts`) before
 * anything was written: its deadline aborts retrieval and fetching when the function's time is
 * nearly up; it holds the request's bound once the request is built, and is charged what the
 * model used.
 */
export interface AdmittedChat extends BegunChat {
  readonly call: Pick<ModelCall, 'deadline' | 'requestBuilt' | 'ended' | 'settle'>;
  /** The vision step's own call, when the message has images (ADR 0030). */
  readonly readingCall?: Pick<ModelCall, 'deadline' | 'requestBuilt' | 'ended' | 'settle'>;
  /** The open known issues, read since admission (ADR 0033, 0034); absent without surges. */
  readonly knownIssues?: KnownIssuesRead;
  /**
   * The inquiry's surge count, started once admission was through, when its text was all it
   * needed (a brand-new conversation's first message, no images: ADR 0035); absent otherwise,
   * and the stream counts the inquiry once its text is known.
   */
  readonly surgeCount?: Promise<SurgeNotice | undefined>;
}

/**
 * Everything that must succeed before the first byte, so failures still get an HTTP status:
 * the user turn is recorded (`ConversationNotFoundError` for a conversation that is missing or
 * not the caller's, `TurnTooLargeError` for oversize text, `ConversationConflictError` when
 * retries could not land it, `ClientMessageIdReusedError` for a `clientMessageId` reused with
 * another message). The commit marks the turn `answering` for one generation lease (and with a
 * `clientMessageId` claims the message's generation), which `streamChat` renews while it
 * answers: a regenerate meanwhile is refused, and a retry arriving meanwhile waits for this
 * answer — or takes over once the lease lapsed because this request died. A brand-new
 * conversation's retrieval (`earlySearch`) was started by the caller alongside the budget and
 * this write, since its inquiry can only be this message.
 */
export async function beginChat(
  owner: Owner,
  request: ChatRequest,
  dependencies: {
    store: ConversationStore;
    config: ChatConfig;
    now: () => Date;
    /** The function's remaining time: the generation lease never runs past it. */
    remainingTimeMs?: () => number;
  },
  started: {
    /** `performance.now()` when the request began: the origin of the chat's timings. */
    readonly atMs: number;
    /** The caller's desks (ADR 0029). */
    readonly desks: readonly string[];
    readonly earlySearch?: Promise<RetrievedTicket[]>;
    /** Filled by the early search with the restricted tickets it removed. */
    readonly restrictedIssueIds: Set<string>;
    /** The files the message sends, resolved to the caller's own (`resolveAttachments`). */
    readonly attachments?: readonly AttachmentRef[];
  },
): Promise<BegunChat> {
  const now = dependencies.now();
  const startedAt = now.toISOString();
  const generation = leaseFrom(now, dependencies.config, dependencies.remainingTimeMs);
  const appended = await dependencies.store.appendUserTurn(owner, {
    conversationId: request.conversationId,
    text: request.message ?? '',
    clientMessageId: request.clientMessageId,
    inquiry: request.inquiry,
    ...(request.supersedes !== undefined ? { supersedes: request.supersedes } : {}),
    ...(started.attachments?.length ? { attachments: started.attachments } : {}),
    generation,
  });
  if (appended.duplicate) assertSameMessage(request, appended);
  return {
    ...appended,
    owner,
    desks: started.desks,
    startedAt,
    startedAtMs: started.atMs,
    earlySearch: started.earlySearch,
    generation,
    restrictedIssueIds: started.restrictedIssueIds,
  };
}

/**
 * A `clientMessageId` names one message: a retry must repeat it exactly, in the conversation it
 * went to (or, for a request that created one, as that conversation's first turn), replacing the
 * same turn if it replaced one (a regenerate retried is the same regenerate). Anything else
 * would replay an answer to a question that was not asked here and drop the new message.
 */
function assertSameMessage(request: ChatRequest, earlier: AppendResult): void {
  const sameConversation =
    request.conversationId === undefined
      ? earlier.turn.seq === 1
      : request.conversationId === earlier.conversation.conversationId;
  const sameVersion = earlier.turn.supersedes === request.supersedes;
  if (!sameConversation || !sameVersion || earlier.turn.text !== request.message) {
    throw new ClientMessageIdReusedError();
  }
}

export interface StreamChatDependencies {
  readonly store: ConversationStore;
  readonly retriever: Retriever;
  readonly model: ChatModel;
  readonly config: ChatConfig;
  readonly remainingTimeMs: () => number;
  /** Told how each chat ended (metrics, the request log); nothing when absent. */
  readonly telemetry?: ChatTelemetry;
  /** The clock of generation leases. */
  readonly now: () => Date;
  /** Where failures the chat recovers from are reported (never message text). */
  readonly log: Log;
  /** Told each finished chat with its inquiry's text (service-desk insights); nothing when absent. */
  readonly insights?: ChatInsights;
  /** Attachments' bytes and the vision step's bound (ADR 0030); absent: none are read. */
  readonly attachments?: ChatAttachments;
  /** Surges and known issues before the first token (ADR 0033); nothing when absent. */
  readonly surges?: SurgeCheck;
}

const PREVIEW_LENGTH = 160;

/**
 * The pipeline after the first byte: meta → analyzing → retrieving (kb_query, kb_chunks) →
 * fetching → generating (token, ticket) → the assistant turn recorded → result. Never throws;
 * any failure ends in one `error` event and a stored `failed` turn.
 */
export async function streamChat(
  begun: AdmittedChat,
  send: (event: ChatEvent) => void,
  dependencies: StreamChatDependencies,
): Promise<void> {
  const { store, retriever, config } = dependencies;
  const { log } = dependencies;
  const { owner, conversation, turn } = begun;
  const restricted = begun.restrictedIssueIds ?? new Set<string>();
  // A new message holds its generation claim from the commit on; a duplicate once it took it over.
  let holdsClaim = !begun.duplicate && begun.generation !== undefined;
  // Renewed while this request generates: from the commit for a new message, from the takeover
  // for a duplicate (the lease of a copy that only replays is never renewed).
  let lease: { stop(): Promise<void> } | undefined;
  const keepLease = (claimedUntil: Date) => {
    if (!begun.generation) return;
    lease = keepGenerationLease({
      store,
      owner,
      lease: {
        conversationId: conversation.conversationId,
        userSeq: turn.seq,
        holder: begun.generation.holder,
        ...(holdsClaim && turn.clientMessageId !== undefined
          ? { clientMessageId: turn.clientMessageId }
          : {}),
      },
      claimedUntil,
      leaseMs: config.generationLeaseMs,
      remainingTimeMs: dependencies.remainingTimeMs,
      now: dependencies.now,
      log,
    });
  };
  // What the report at the end says; filled in as the pipeline gets there.
  const measured: Measured = { ticketsRetrieved: 0 };
  try {
    // Everything `meta` says was settled by the commit: it leaves before any store call starts.
    send({
      event: 'meta',
      data: {
        conversationId: conversation.conversationId,
        inquiryId: turn.inquiryId,
        version: conversation.version,
        modelId: config.modelId,
        userSeq: turn.seq,
      },
    });
    // Read after the user turn committed (consistently), so it always contains that turn. A
    // brand-new conversation's history is just that turn: no need to read it back. A duplicate
    // reads it once the earlier copy settled (below).
    const history: Promise<ConversationWithTurns> | undefined = begun.duplicate
      ? undefined
      : conversation.turnCount === 1
        ? Promise.resolve({ conversation, turns: [turn] })
        : store.loadConversation(owner, conversation.conversationId);
    history?.catch(() => undefined);
    if (!begun.duplicate && begun.generation) keepLease(begun.generation.until);
    let loaded: Promise<ConversationWithTurns>;
    if (history) {
      loaded = history;
    } else {
      const attached = await attachToEarlierCopy(begun, send, dependencies);
      if (attached.kind === 'settled') {
        measured.replayed = attached.replayed;
        return;
      }
      holdsClaim = attached.claimedUntil !== undefined;
      if (attached.claimedUntil) keepLease(attached.claimedUntil);
      loaded = Promise.resolve(attached.loaded);
    }

    send({ event: 'progress', data: { step: 'analyzing' } });
    // The inquiry's own user text: never assistant text, never other inquiries.
    const typedText =
      turn.kind === 'question' ? turn.text : userTextOf((await loaded).turns, turn.inquiryId);
    // The inquiry's files (ADR 0030), with their bytes: its user turns' current versions.
    const attachedTurns =
      turn.kind === 'question' && !turn.attachments?.length
        ? []
        : currentVersions((await loaded).turns).filter(
            (candidate) =>
              candidate.inquiryId === turn.inquiryId &&
              candidate.role === 'user' &&
              (candidate.attachments?.length ?? 0) > 0,
          );
    const attached = new Map<number, LoadedAttachments>();
    for (const attachedTurn of attachedTurns) {
      if (!dependencies.attachments) break;
      attached.set(
        attachedTurn.seq,
        await loadAttachments(
          dependencies.attachments.store,
          owner,
          attachedTurn.attachments ?? [],
        ),
      );
    }
    const images = [...attached.values()].flatMap((loadedFiles) => loadedFiles.images);
    let reading: AttachmentReading | undefined;
    if (images.length > 0 && begun.readingCall && dependencies.attachments) {
      send({ event: 'progress', data: { step: 'reading_attachment' } });
      reading = await readAttachments({
        model: dependencies.model,
        call: begun.readingCall,
        images,
        inquiryText: typedText,
        maxTokens: dependencies.attachments.readingMaxTokens,
        log,
      });
      measured.reading = reading;
    } else if (images.length > 0) {
      // A reply to a clarification: the screenshot was read when the inquiry began.
      reading = currentVersions((await loaded).turns).findLast(
        (candidate) => candidate.inquiryId === turn.inquiryId && candidate.attachmentReading,
      )?.attachmentReading;
    }
    // What was read joins what was typed: the query, the references and the language see both.
    const inquiryText = [typedText, reading ? readingText(reading) : '']
      .filter((part) => part.trim() !== '')
      .join('\n');
    measured.inquiryText = inquiryText;
    if (reading && turn.seq === 1 && turn.text.trim() === '' && reading.description.trim()) {
      // An image-only first message: the conversation is named by what its screenshot shows.
      await store
        .renameConversation(owner, conversation.conversationId, titleFromText(reading.description))
        .catch((error: unknown) => log.error('could not title the conversation', { error }));
    }
    const references = parseTicketReferences(inquiryText);
    const language = detectLanguage(typedText.trim() === '' ? inquiryText : typedText);
    // Read since admission; matched against the inquiry as it now stands.
    const knownIssues = begun.knownIssues?.matching(inquiryText);

    send({ event: 'progress', data: { step: 'retrieving' } });
    send({
      event: 'kb_query',
      data: { query: toRetrievalQuery(inquiryText, { expand: config.queryExpansion }) },
    });
    const early = turn.kind === 'question' ? begun.earlySearch : undefined;
    const retrievalStartedAt = early ? begun.startedAtMs : performance.now();
    const searching =
      early ??
      retrieveTickets(retriever, inquiryText, config, begun.desks, begun.call.deadline, restricted);
    // The tickets the inquiry names do not depend on what the search finds: fetched meanwhile.
    const fetching = fetchReferencedTickets(
      retriever,
      references,
      begun.desks,
      begun.call.deadline,
      restricted,
    );
    fetching.catch(() => undefined);
    // Counted as soon as its topic is known (ADR 0033): a new conversation's first message since
    // admission (ADR 0035); otherwise a subject's now, beside retrieval, a symptom's once the
    // tickets are in. Nothing before the model call waits for it; its notice leaves before the
    // first token (the answer's events are held).
    const surge =
      begun.surgeCount ??
      dependencies.surges?.countInquiry(
        owner,
        {
          conversationId: conversation.conversationId,
          inquiryId: turn.inquiryId,
          text: inquiryText,
        },
        searching,
      );
    const similar = await searching;
    measured.retrievalMs = performance.now() - retrievalStartedAt;
    measured.ticketsRetrieved = similar.length;
    measured.retrieved = similar;
    send({ event: 'kb_chunks', data: { chunks: similar.map(toKbChunk) } });

    send({ event: 'progress', data: { step: 'fetching' } });
    const referenced = await fetching;
    const tickets = uniqueTickets([...referenced, ...similar]);
    measured.offered = tickets;

    // Known issues are part of the model's request; the surge notice only of the stream.
    const matchingIssues = (await knownIssues) ?? [];
    const { turns } = await loaded;
    const { working, archive } = splitInquiries(turns, turn.inquiryId);
    const request = buildModelRequest({
      working: working.map((workingTurn) => {
        const files = attached.get(workingTurn.seq);
        return files ? { ...workingTurn, attached: files } : workingTurn;
      }),
      ...(reading ? { reading } : {}),
      archive,
      tickets,
      knownIssues: matchingIssues,
      language,
      archiveBudget: config.archiveBudget,
      maxTokens: config.maxTokens,
      ...(config.promptCache ? { promptCache: config.promptCache } : {}),
    });
    measured.generationStartedAt = performance.now();
    // The answer's events wait behind the notices, which wait for the surge count.
    const answerEvents = heldEvents(send);
    const generating = generateWithStop(
      { ...begun, restrictedIssueIds: restricted },
      dependencies,
      request,
      new Set(tickets.map((ticket) => ticket.issueId)),
      answerEvents.send,
    );
    const surgeNotice = await surge;
    if (surgeNotice) send({ event: 'surge', data: surgeNotice });
    for (const issue of matchingIssues) send({ event: 'known_issue', data: issue });
    measured.notices = answerNoticesOf(surgeNotice, matchingIssues);
    send({ event: 'progress', data: { step: 'generating' } });
    measured.answerReleasedAt = performance.now();
    answerEvents.release();
    // Once the first token is free to leave: the resize is bookkeeping that neither the model nor
    // the notices wait for, and a store write here would queue beside the surge count.
    begun.call.requestBuilt(request);
    const outcome = await generating;
    const answer = { ...outcome.answer, source_chunks_count: similar.length };
    measured.outcome = outcome;
    begun.call.ended({
      request,
      usage: outcome.usage,
      ...(outcome.failure ? { failure: outcome.failure } : {}),
      output: outcome.answer,
    });
    measured.answerSeq = await recordAnswer(
      begun,
      { ...outcome, answer },
      store,
      send,
      config.modelId,
      usageOf(outcome, begun.startedAtMs, measured),
      log,
      reading,
      measured.notices,
    );
  } catch (error) {
    log.error('chat pipeline failed', { error });
    const failed: GenerationOutcome = {
      status: 'failed',
      answer: { response_type: 'results', general_advice: '' },
      unverifiedReferenceCount: 0,
      unverifiedLinkCount: 0,
      timing: { modelMs: 0 },
      ticketsCited: 0,
      ticketsDropped: {},
      failure:
        error instanceof StoreUnavailableError
          ? storeUnavailableFailure
          : {
              code: 'internal',
              message: 'Something went wrong while preparing the answer. Please try again.',
              retryable: true,
            },
    };
    measured.outcome = failed;
    measured.answerSeq = await recordAnswer(
      begun,
      failed,
      store,
      send,
      config.modelId,
      undefined,
      log,
      undefined,
      measured.notices,
    );
  } finally {
    // The answer is recorded (or could not be): a retry may now replay it, or generate again
    // after a failure, without waiting for the lease to lapse.
    await lease?.stop();
    const { clientMessageId } = turn;
    if (holdsClaim && begun.generation && clientMessageId !== undefined) {
      await store
        .releaseGeneration(owner, clientMessageId, begun.generation.holder)
        .catch((error: unknown) => log.error('could not release the generation claim', { error }));
    }
    // What the model used, or nothing when it was never called (a replay, a failure before it).
    await begun.call.settle();
    await begun.readingCall?.settle();
    const report = reportOf(begun, config.modelId, measured, restricted);
    dependencies.telemetry?.chatFinished(report);
    // After the answer's last event: the insights write (bounded, never throwing) only holds
    // the stream's end, not the answer.
    if (dependencies.insights && measured.inquiryText !== undefined) {
      await dependencies.insights.chatFinished(report, { text: measured.inquiryText });
    }
  }
}

/** What one chat measured on its way, for the stored usage and the report. */
interface Measured {
  outcome?: GenerationOutcome;
  /** Settled by replaying the earlier copy's answer. */
  replayed?: boolean;
  retrievalMs?: number;
  /** `performance.now()` when the model was called. */
  generationStartedAt?: number;
  /** `performance.now()` when the answer's events were let through (after the notices). */
  answerReleasedAt?: number;
  ticketsRetrieved: number;
  /** The inquiry's own user text, once read (for insights; never in the report). */
  inquiryText?: string;
  /** What retrieval returned (restricted removed), best first. */
  retrieved?: readonly RetrievedTicket[];
  /** Every ticket the model was given (referenced and retrieved): what a card can cite. */
  offered?: readonly RetrievedTicket[];
  /** The stored assistant turn's seq. */
  answerSeq?: number;
  /** What the vision step read (never logged or reported: it may show personal data). */
  reading?: AttachmentReading;
  /** The surge notice and known issues the stream sent: stored with the answer, even a failed one. */
  notices?: AnswerNotices;
}

const whole = (ms: number) => Math.max(0, Math.round(ms));

/**
 * When an answer's event `ms` after the model call left for the page (`performance.now()`): as
 * the model produced it, or once the notices before it were sent if it had to wait for them.
 */
function sentAt(measured: Measured, ms: number | undefined): number | undefined {
  if (ms === undefined || measured.generationStartedAt === undefined) return undefined;
  return Math.max(measured.generationStartedAt + ms, measured.answerReleasedAt ?? 0);
}

/**
 * A `send` whose events are kept, in order, until `release`; from then on they go straight
 * through. The model streams meanwhile; what it produced is sent at once on release.
 */
function heldEvents(send: (event: ChatEvent) => void) {
  let held: ChatEvent[] | undefined = [];
  return {
    send(event: ChatEvent) {
      if (held) held.push(event);
      else send(event);
    },
    release() {
      const events = held ?? [];
      held = undefined;
      for (const event of events) send(event);
    },
  };
}

/** The stored usage of an answer: the model's tokens and the pipeline's timings. */
function usageOf(
  outcome: GenerationOutcome,
  requestStartedAt: number,
  measured: Measured,
): TurnUsage | undefined {
  if (!outcome.usage) return undefined;
  const { firstTokenMs, modelMs } = outcome.timing;
  const firstTokenAt = sentAt(measured, firstTokenMs);
  return {
    ...outcome.usage,
    ...(firstTokenAt !== undefined
      ? { timeToFirstTokenMs: whole(firstTokenAt - requestStartedAt) }
      : {}),
    ...(measured.retrievalMs !== undefined ? { retrievalMs: whole(measured.retrievalMs) } : {}),
    modelMs: whole(modelMs),
  };
}

function reportOf(
  begun: BegunChat,
  modelId: string,
  measured: Measured,
  restricted: ReadonlySet<string>,
): ChatReport {
  const { outcome } = measured;
  const fromRequest = (ms: number | undefined) => {
    const at = sentAt(measured, ms);
    return at === undefined ? undefined : whole(at - begun.startedAtMs);
  };
  const ended: ChatReport['outcome'] =
    measured.replayed || !outcome
      ? measured.replayed
        ? 'replayed'
        : 'failed'
      : outcome.status === 'complete' && outcome.answer.response_type === 'clarification'
        ? 'clarification'
        : outcome.status;
  return {
    owner: begun.owner,
    conversationId: begun.conversation.conversationId,
    inquiryId: begun.turn.inquiryId,
    modelId,
    outcome: ended,
    ...(outcome?.failure ? { failureCode: outcome.failure.code } : {}),
    durationMs: whole(performance.now() - begun.startedAtMs),
    timeToFirstTokenMs: fromRequest(outcome?.timing.firstTokenMs),
    timeToFirstTicketMs: fromRequest(outcome?.timing.firstTicketMs),
    retrievalMs: measured.retrievalMs === undefined ? undefined : whole(measured.retrievalMs),
    modelMs: outcome && outcome.timing.modelMs > 0 ? whole(outcome.timing.modelMs) : undefined,
    inputTokens: outcome?.usage?.inputTokens,
    outputTokens: outcome?.usage?.outputTokens,
    cacheReadInputTokens: outcome?.usage?.cacheReadInputTokens,
    cacheWriteInputTokens: outcome?.usage?.cacheWriteInputTokens,
    ticketsRetrieved: measured.ticketsRetrieved,
    ticketsCited: outcome?.ticketsCited ?? 0,
    ticketsDropped: Object.values(outcome?.ticketsDropped ?? {}).reduce(
      (sum, count) => sum + (count ?? 0),
      0,
    ),
    restrictedFiltered: restricted.size,
    unverifiedReferences: outcome?.unverifiedReferenceCount ?? 0,
    unverifiedLinks: outcome?.unverifiedLinkCount ?? 0,
    ...insightFieldsOf(measured),
  };
}

/** What the insights need beyond the metrics: the stored answer, its cards, the nearest ticket. */
function insightFieldsOf(
  measured: Measured,
): Pick<
  ChatReport,
  | 'answerSeq'
  | 'citedIssueIds'
  | 'citedSubjects'
  | 'hasMailDraft'
  | 'retrievedIssueIds'
  | 'bestScore'
  | 'nearestCategory'
> {
  const retrieved = measured.retrieved ?? [];
  const nearest = retrieved.reduce<RetrievedTicket | undefined>(
    (best, ticket) => (best === undefined || ticket.score > best.score ? ticket : best),
    undefined,
  );
  const citedIssueIds = measured.outcome?.answer.results?.map((card) => card.issue_id) ?? [];
  // Grounding made each card's issue_id one of the offered tickets' ids exactly; the subject is
  // the ticket's as the Knowledge Base holds it, not the card's model-written copy.
  const subjectOf = new Map(
    (measured.offered ?? retrieved).map((ticket) => [ticket.issueId, ticket.subject]),
  );
  const citedSubjects: Record<string, string> = {};
  for (const issueId of citedIssueIds) {
    const subject = subjectOf.get(issueId);
    if (subject) citedSubjects[issueId] = subject;
  }
  return {
    ...(measured.answerSeq !== undefined ? { answerSeq: measured.answerSeq } : {}),
    citedIssueIds,
    citedSubjects,
    // As the mail-draft routes decide `no_mail_draft`: an answer turn with a non-empty draft.
    hasMailDraft:
      measured.outcome?.answer.response_type === 'results' &&
      (measured.outcome.answer.mail_draft?.trim() ?? '') !== '',
    retrievedIssueIds: retrieved.map((ticket) => ticket.issueId),
    ...(nearest ? { bestScore: nearest.score } : {}),
    ...(nearest?.category ? { nearestCategory: nearest.category } : {}),
  };
}

/** The inquiry's user text as it stands now: an edited question replaces the version it edits. */
function userTextOf(turns: readonly Turn[], inquiryId: string): string {
  return currentVersions(turns)
    .filter((turn) => turn.inquiryId === inquiryId && turn.role === 'user')
    .map((turn) => turn.text)
    .join('\n');
}

function uniqueTickets(tickets: readonly RetrievedTicket[]): RetrievedTicket[] {
  const seen = new Set<string>();
  return tickets.filter((ticket) => !seen.has(ticket.issueId) && seen.add(ticket.issueId));
}

function toKbChunk(ticket: RetrievedTicket): KbChunk {
  const preview = Array.from(ticket.text.replace(/\s+/g, ' ').trim())
    .slice(0, PREVIEW_LENGTH)
    .join('');
  return { issue_id: ticket.issueId, subject: ticket.subject, score: ticket.score, preview };
}
