import type { ChatEvent, KbChunk } from '../contract/chat-events.js';
import type { ChatRequest } from '../contract/chat-request.js';
import { type GenerationOutcome, generateWithStop } from './generate.js';
import { detectLanguage, parseTicketReferences, splitInquiries } from './inquiry-rules.js';
import { buildModelRequest } from './model-request.js';
import {
  type AppendResult,
  type ChatConfig,
  type ChatModel,
  type ConversationStore,
  type ConversationWithTurns,
  type Owner,
  type RetrievedTicket,
  type Retriever,
  StoreUnavailableError,
  type Turn,
} from './ports.js';
import { recordAnswer, replayStoredAnswer, storeUnavailableFailure } from './record-replay.js';

/**
 * Running one chat: `beginChat` does what must succeed before the first byte (the user turn is
 * recorded, retrieval starts), `streamChat` everything after it, ending in a stored assistant turn
 * and one `result` or `error` event.
 */

export interface BegunChat extends AppendResult {
  readonly owner: Owner;
  readonly startedAt: string;
  /** Retrieval already under way for a brand-new conversation (its inquiry can only be this message). */
  readonly earlySearch?: Promise<RetrievedTicket[]>;
}

/**
 * Everything that must succeed before the first byte, so failures still get an HTTP status:
 * the user turn is recorded (404 for a conversation that is missing or not the caller's, 413 for
 * oversize text, 409 when retries could not land it). For a new conversation, retrieval starts
 * alongside the write instead of waiting for it.
 */
export async function beginChat(
  owner: Owner,
  request: ChatRequest,
  dependencies: {
    store: ConversationStore;
    retriever: Retriever;
    config: ChatConfig;
    now: () => Date;
    /** Aborts retrieval when the function's time is nearly up. */
    deadline?: AbortSignal;
  },
): Promise<BegunChat> {
  const startedAt = dependencies.now().toISOString();
  const earlySearch = request.conversationId
    ? undefined
    : retrieveTickets(
        dependencies.retriever,
        request.message,
        dependencies.config.numberOfResults,
        dependencies.deadline,
      );
  // Keep an early failure from surfacing as an unhandled rejection; it is awaited later.
  earlySearch?.catch(() => undefined);
  const appended = await dependencies.store.appendUserTurn(owner, {
    conversationId: request.conversationId,
    text: request.message,
    clientMessageId: request.clientMessageId,
    inquiry: request.inquiry,
  });
  return { ...appended, owner, startedAt, earlySearch };
}

export interface StreamChatDependencies {
  readonly store: ConversationStore;
  readonly retriever: Retriever;
  readonly model: ChatModel;
  readonly config: ChatConfig;
  readonly remainingTimeMs: () => number;
  /** Aborts retrieval and fetching when the function's time is nearly up. */
  readonly deadline?: AbortSignal;
}

const PREVIEW_LENGTH = 160;

/**
 * The pipeline after the first byte: meta → analyzing → retrieving (kb_query, kb_chunks) →
 * fetching → generating (token, ticket) → the assistant turn recorded → result. Never throws;
 * any failure ends in one `error` event and a stored `failed` turn.
 */
export async function streamChat(
  begun: BegunChat,
  send: (event: ChatEvent) => void,
  dependencies: StreamChatDependencies,
): Promise<void> {
  const { store, retriever, config } = dependencies;
  const { owner, conversation, turn } = begun;
  // Read after the user turn committed (consistently), so it always contains that turn. A
  // brand-new conversation's history is just that turn: no need to read it back.
  const history: Promise<ConversationWithTurns> =
    conversation.turnCount === 1 && !begun.duplicate
      ? Promise.resolve({ conversation, turns: [turn] })
      : store.loadConversation(owner, conversation.conversationId);
  history.catch(() => undefined);
  try {
    send({
      event: 'meta',
      data: {
        conversationId: conversation.conversationId,
        inquiryId: turn.inquiryId,
        version: conversation.version,
        modelId: config.modelId,
      },
    });
    if (begun.duplicate && replayStoredAnswer(await history, turn, send)) return;

    send({ event: 'progress', data: { step: 'analyzing' } });
    // The inquiry's own user text: never assistant text, never other inquiries.
    const inquiryText =
      turn.kind === 'question' ? turn.text : userTextOf((await history).turns, turn.inquiryId);
    const references = parseTicketReferences(inquiryText);
    const language = detectLanguage(inquiryText);

    send({ event: 'progress', data: { step: 'retrieving' } });
    send({ event: 'kb_query', data: { query: toRetrievalQuery(inquiryText) } });
    const similar = await (turn.kind === 'question' && begun.earlySearch
      ? begun.earlySearch
      : retrieveTickets(retriever, inquiryText, config.numberOfResults, dependencies.deadline));
    send({ event: 'kb_chunks', data: { chunks: similar.map(toKbChunk) } });

    send({ event: 'progress', data: { step: 'fetching' } });
    const referenced = await fetchReferencedTickets(retriever, references, dependencies.deadline);
    const tickets = uniqueTickets([...referenced, ...similar]);

    send({ event: 'progress', data: { step: 'generating' } });
    const { turns } = await history;
    const { working, archive } = splitInquiries(turns, turn.inquiryId);
    const request = buildModelRequest({
      working,
      archive,
      tickets,
      language,
      archiveBudget: config.archiveBudget,
      maxTokens: config.maxTokens,
    });
    const outcome = await generateWithStop(
      begun,
      dependencies,
      request,
      new Set(tickets.map((ticket) => ticket.issueId)),
      send,
    );
    const answer = { ...outcome.answer, source_chunks_count: similar.length };
    await recordAnswer(begun, { ...outcome, answer }, store, send, config.modelId);
  } catch (error) {
    console.error('chat pipeline failed', error);
    const failed: GenerationOutcome = {
      status: 'failed',
      answer: { response_type: 'results', general_advice: '' },
      unverifiedReferenceCount: 0,
      failure:
        error instanceof StoreUnavailableError
          ? storeUnavailableFailure
          : {
              code: 'internal',
              message: 'Something went wrong while preparing the answer. Please try again.',
              retryable: true,
            },
    };
    await recordAnswer(begun, failed, store, send, config.modelId);
  }
}

function userTextOf(turns: readonly Turn[], inquiryId: string): string {
  return turns
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

/** Bedrock's Retrieve accepts at most 1,000 characters of query text. */
export const MAX_QUERY_LENGTH = 1000;

export function toRetrievalQuery(inquiryText: string): string {
  return Array.from(inquiryText.trim()).slice(0, MAX_QUERY_LENGTH).join('');
}

/**
 * Similar tickets for the inquiry text, restricted ones removed a second time here whatever the
 * retriever's filter did, and merged per ticket (a long ticket can come back as several chunks).
 */
export async function retrieveTickets(
  retriever: Retriever,
  inquiryText: string,
  limit: number,
  signal?: AbortSignal,
): Promise<RetrievedTicket[]> {
  return mergeChunks(await retriever.search(toRetrievalQuery(inquiryText), { limit, signal }));
}

export async function fetchReferencedTickets(
  retriever: Retriever,
  issueIds: readonly string[],
  signal?: AbortSignal,
): Promise<RetrievedTicket[]> {
  if (issueIds.length === 0) return [];
  const limit = Math.min(100, issueIds.length * 4);
  return mergeChunks(await retriever.fetchByIssueIds(issueIds, { limit, signal }));
}

/** Drops restricted chunks and joins chunks of one ticket, best score first. */
export function mergeChunks(chunks: readonly RetrievedTicket[]): RetrievedTicket[] {
  const byIssue = new Map<string, RetrievedTicket>();
  for (const chunk of chunks) {
    if (chunk.restricted) continue;
    const existing = byIssue.get(chunk.issueId);
    if (!existing) byIssue.set(chunk.issueId, chunk);
    else if (!existing.text.includes(chunk.text)) {
      byIssue.set(chunk.issueId, {
        ...existing,
        score: Math.max(existing.score, chunk.score),
        text: `${existing.text}\n${chunk.text}`,
      });
    }
  }
  return [...byIssue.values()].sort((a, b) => b.score - a.score);
}
