import type { ChatEvent, KbChunk } from '../stream/chat-events.js';
import type { BegunChat } from './begin-chat.js';
import { buildModelRequest } from './build-model-request.js';
import type { ChatConfig } from './chat-config.js';
import type { ChatModel } from './chat-model.js';
import type { ConversationStore, ConversationWithTurns, Turn } from './conversation-store.js';
import { detectLanguage } from './detect-language.js';
import type { GenerationOutcome } from './generate-answer.js';
import { generateWithStop } from './generate-with-stop.js';
import { parseTicketReferences } from './parse-ticket-references.js';
import { recordAnswer } from './record-answer.js';
import { replayStoredAnswer } from './replay-stored-answer.js';
import { fetchReferencedTickets, retrieveTickets, toRetrievalQuery } from './retrieve-tickets.js';
import type { RetrievedTicket, Retriever } from './retriever.js';
import { splitInquiries } from './split-inquiries.js';

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
        offline: config.offline,
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
    await recordAnswer(begun, outcome, store, send, config.offline);
  } catch (error) {
    console.error('chat pipeline failed', error);
    const failed: GenerationOutcome = {
      status: 'failed',
      answer: { response_type: 'results', general_advice: '' },
      failure: {
        code: 'internal',
        message: 'Something went wrong while preparing the answer. Please try again.',
        retryable: true,
      },
    };
    await recordAnswer(begun, failed, store, send, config.offline);
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
  return { issueId: ticket.issueId, subject: ticket.subject, score: ticket.score, preview };
}
