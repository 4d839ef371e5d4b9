import { type ChatRequestDeps, type ChatRequestInput, runChatRequest } from './run-chat-request.js';

/** A request streaming into a conversation, as the controller tracks it. */
export interface LiveRequest {
  readonly controller: AbortController;
  /** Settles when the bubble reached its final state (never rejects). */
  readonly done: Promise<void>;
  /** Known from the start for an existing conversation, from `meta` for a new one. */
  readonly conversationId: () => string | undefined;
}

/**
 * Starts one chat request with its own abort controller, and keeps track of the conversation
 * id it ends up in (a new conversation learns it from `meta`), which the stop route needs.
 */
export function startLiveRequest(
  deps: ChatRequestDeps & { readonly onSettled: () => void },
  input: Omit<ChatRequestInput, 'signal'>,
): LiveRequest {
  const controller = new AbortController();
  let conversationId = input.conversationId;
  const done = runChatRequest(
    {
      ...deps,
      onAdopted: (draftKey, id) => {
        conversationId = id;
        deps.onAdopted(draftKey, id);
      },
    },
    { ...input, signal: controller.signal },
  ).finally(deps.onSettled);
  return { controller, done, conversationId: () => conversationId };
}
