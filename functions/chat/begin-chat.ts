import type { ChatConfig } from './chat-config.js';
import type { ChatRequest } from './chat-request-schema.js';
import type { AppendResult, ConversationStore } from './conversation-store.js';
import type { Owner } from './owner.js';
import { retrieveTickets } from './retrieve-tickets.js';
import type { RetrievedTicket, Retriever } from './retriever.js';

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
  });
  return { ...appended, owner, startedAt, earlySearch };
}
