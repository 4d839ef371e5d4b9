import type { RequestErrorCode, StreamErrorCode } from '../contract/errors.js';

/**
 * The errors the chat and the conversation store raise on purpose, and the base every feature's
 * refusals extend (`knowledge/errors.ts`, `mail-draft/errors.ts`): what went wrong, in the
 * core's words, with a code from the wire contract (`contract/errors.ts`) and no HTTP status —
 * the API chooses that (`functions/api/http.ts`). After the first byte a stream turns failures
 * into `error` events instead.
 */

/**
 * A request the core refuses on purpose: its message is written for the caller (English, no
 * internals) and its `code` is the contract's. The API renders every subclass with the status it
 * maps the code to; anything that is not one is a 500 without details.
 */
export abstract class RequestRefusedError extends Error {
  abstract readonly code: RequestErrorCode;
}

/** No conversation with that id belongs to the caller (someone else's looks the same: absent). */
export class ConversationNotFoundError extends RequestRefusedError {
  readonly code = 'not_found' as const;
  constructor() {
    super('Conversation not found');
    this.name = 'ConversationNotFoundError';
  }
}

/** The conversation exists but has no turn of that kind with that number (an answer, a message). */
export class TurnNotFoundError extends RequestRefusedError {
  readonly code = 'turn_not_found' as const;
  constructor(seq: number, what = 'answer') {
    super(`This conversation has no ${what} numbered ${seq}`);
    this.name = 'TurnNotFoundError';
  }
}

/** Retries could not land the write: another writer kept winning. */
export class ConversationConflictError extends RequestRefusedError {
  readonly code = 'conflict' as const;
  constructor(options?: { cause?: unknown }) {
    super('The conversation changed too often to save this turn; try again', options);
    this.name = 'ConversationConflictError';
  }
}

/**
 * A `clientMessageId` sent again with another message, or for another conversation: it names one
 * message, so the earlier answer cannot stand for this request, and a new one would make the id
 * ambiguous. Raised before anything is written.
 */
export class ClientMessageIdReusedError extends RequestRefusedError {
  readonly code = 'client_message_id_reused' as const;
  constructor() {
    super(
      'This clientMessageId was already used for a different message or conversation; send a new id',
    );
    this.name = 'ClientMessageIdReusedError';
  }
}

/** Text or result too large to store (checked before writing; DynamoDB's 400 KB item limit). */
export class TurnTooLargeError extends RequestRefusedError {
  readonly code = 'too_large' as const;
  constructor(message: string) {
    super(message);
    this.name = 'TurnTooLargeError';
  }
}

/**
 * The store cannot be reached or is overloaded (connection refused or reset, timeouts, throttling,
 * 5xx). Nothing about the request is wrong: the client should try again shortly. Before the first
 * byte the API answers it with `Retry-After`; after it, it is a retryable `error` event.
 */
export class StoreUnavailableError extends RequestRefusedError {
  readonly code = 'store_unavailable' as const;
  /** What `Retry-After` tells the client. */
  readonly retryAfterSeconds = 5;
  constructor(options?: { cause?: unknown }) {
    super('The conversation store is temporarily unavailable. Please try again shortly.', options);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * The user spent today's token budget (`ChatConfig.dailyTokenBudget`): nothing is written and no
 * model is called until the budget resets at midnight UTC.
 */
export class DailyBudgetExceededError extends RequestRefusedError {
  readonly code = 'daily_budget_exceeded' as const;
  readonly retryAfterSeconds: number;
  constructor(
    readonly resetsAt: Date,
    now: Date,
  ) {
    super(
      `Today's AI usage limit for your account is used up. It resets at ${resetsAt.toISOString()} (midnight UTC).`,
    );
    this.name = 'DailyBudgetExceededError';
    this.retryAfterSeconds = Math.max(1, Math.ceil((resetsAt.getTime() - now.getTime()) / 1000));
  }
}

/** The `cursor` passed to `listConversations` was not one it returned. */
export class InvalidCursorError extends RequestRefusedError {
  readonly code = 'invalid_cursor' as const;
  constructor() {
    super('Invalid cursor');
    this.name = 'InvalidCursorError';
  }
}

/** The model failures an adapter can name: the `error` event codes of `ChatModelError`. */
export type ChatModelErrorCode = Extract<
  StreamErrorCode,
  'model_throttled' | 'model_unavailable' | 'model_stream_failed' | 'model_rejected'
>;

/**
 * A model failure the core understands; anything else is an internal error. Raised by the model
 * adapter while streaming, so it ends as an `error` event, never as a refused request.
 */
export class ChatModelError extends Error {
  constructor(
    readonly code: ChatModelErrorCode,
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(`Model call failed: ${code}`, options);
    this.name = 'ChatModelError';
  }
}

/** `supersedes` named a turn that is not the conversation's latest user turn. */
export class NotLatestQuestionError extends RequestRefusedError {
  readonly code = 'not_latest_question' as const;
  constructor() {
    super('Only the latest question of a conversation can be regenerated or edited');
    this.name = 'NotLatestQuestionError';
  }
}

/** `supersedes` named the latest user turn while its answer is still being generated. */
export class AnswerInProgressError extends RequestRefusedError {
  readonly code = 'answer_in_progress' as const;
  constructor() {
    super('The answer to this question is still being generated; stop it or wait for it first');
    this.name = 'AnswerInProgressError';
  }
}

export class InquiryNotFoundError extends RequestRefusedError {
  readonly code = 'inquiry_not_found' as const;
  constructor() {
    super('No such inquiry in this conversation');
    this.name = 'InquiryNotFoundError';
  }
}
