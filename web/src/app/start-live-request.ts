import { type ChatRequestDeps, type ChatRequestInput, runChatRequest } from './run-chat-request.js';

/** A request streaming into a conversation, as the controller tracks it. */
export interface LiveRequest {
  readonly controller: AbortController;
  /** Settles when the bubble reached its final state (never rejects). */
  readonly done: Promise<void>;
  /** Known from the start for an existing conversation, from `meta` for a new one. */
  readonly conversationId: () => string | undefined;
  /** The stored user turn being answered, from `meta`: what the stop route names. */
  readonly userSeq: () => number | undefined;
  /** Settles once `meta` arrived (with the user turn), or when the request ended without it. */
  readonly started: Promise<void>;
}

/**
 * Starts one chat request with its own abort controller, and keeps track of the conversation
 * id it ends up in (a new conversation learns it from `meta`) and the user turn it answers (from
 * `meta`), which the stop route needs.
 */
export function startLiveRequest(
  deps: ChatRequestDeps & { readonly onSettled: () => void },
  input: Omit<ChatRequestInput, 'signal'>,
): LiveRequest {
  const controller = new AbortController();
  let conversationId = input.conversationId;
  let userSeq: number | undefined;
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  const done = runChatRequest(
    {
      ...deps,
      onAdopted: (draftKey, id) => {
        conversationId = id;
        deps.onAdopted(draftKey, id);
      },
      onUserSeq: (seq) => {
        userSeq = seq;
        markStarted();
      },
    },
    { ...input, signal: controller.signal },
  ).finally(() => {
    markStarted();
    deps.onSettled();
  });
  return {
    controller,
    done,
    started,
    conversationId: () => conversationId,
    userSeq: () => userSeq,
  };
}
