/**
 * Every error the core (chat, knowledge) and its adapters raise on purpose, in one place: what
 * went wrong, in the core's words. The API turns them into responses (`functions/api/http.ts`);
 * the chat turns them into `error` events after the first byte.
 */

/** No conversation with that id belongs to the caller (someone else's looks the same: absent). */
export class ConversationNotFoundError extends Error {
  readonly statusCode = 404;
  constructor() {
    super('Conversation not found');
    this.name = 'ConversationNotFoundError';
  }
}

/** The conversation exists but has no turn of that kind with that number (an answer, a message). */
export class TurnNotFoundError extends Error {
  readonly statusCode = 404;
  readonly code = 'turn_not_found';
  constructor(seq: number, what = 'answer') {
    super(`This conversation has no ${what} numbered ${seq}`);
    this.name = 'TurnNotFoundError';
  }
}

/** The inquiry already became a ticket; the conflict names it so the page can link to it. */
export class KnowledgeAlreadyPublishedError extends Error {
  readonly statusCode = 409;
  readonly code = 'already_published';
  constructor(readonly issueId: string) {
    super(`This inquiry was already published as ticket #${issueId}`);
    this.name = 'KnowledgeAlreadyPublishedError';
  }
}

/** Retries could not land the write: another writer kept winning. */
export class ConversationConflictError extends Error {
  readonly statusCode = 409;
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
export class ClientMessageIdReusedError extends Error {
  readonly statusCode = 422;
  readonly code = 'client_message_id_reused';
  constructor() {
    super(
      'This clientMessageId was already used for a different message or conversation; send a new id',
    );
    this.name = 'ClientMessageIdReusedError';
  }
}

/** Text or result too large to store (checked before writing; DynamoDB's 400 KB item limit). */
export class TurnTooLargeError extends Error {
  readonly statusCode = 413;
  constructor(message: string) {
    super(message);
    this.name = 'TurnTooLargeError';
  }
}

/**
 * The store cannot be reached or is overloaded (connection refused or reset, timeouts, throttling,
 * 5xx). Nothing about the request is wrong: the client should try again shortly. Before the first
 * byte it is a 503 with `Retry-After`; after it, a retryable `error` event.
 */
export class StoreUnavailableError extends Error {
  readonly statusCode = 503;
  readonly code = 'store_unavailable';
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
export class DailyBudgetExceededError extends Error {
  readonly statusCode = 429;
  readonly code = 'daily_budget_exceeded';
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
export class InvalidCursorError extends Error {
  readonly statusCode = 400;
  readonly code = 'invalid_cursor';
  constructor() {
    super('Invalid cursor');
    this.name = 'InvalidCursorError';
  }
}

/** A model failure the core understands; anything else is an internal error. */
export class ChatModelError extends Error {
  constructor(
    readonly code: 'throttled' | 'unavailable' | 'stream_failed' | 'rejected',
    readonly retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(`Model call failed: ${code}`, options);
    this.name = 'ChatModelError';
  }
}

/** `supersedes` named a turn that is not the conversation's latest user turn. */
export class NotLatestQuestionError extends Error {
  readonly statusCode = 409;
  readonly code = 'not_latest_question';
  constructor() {
    super('Only the latest question of a conversation can be regenerated or edited');
    this.name = 'NotLatestQuestionError';
  }
}

/** `supersedes` named the latest user turn while its answer is still being generated. */
export class AnswerInProgressError extends Error {
  readonly statusCode = 409;
  readonly code = 'answer_in_progress';
  constructor() {
    super('The answer to this question is still being generated; stop it or wait for it first');
    this.name = 'AnswerInProgressError';
  }
}

export class InquiryNotFoundError extends Error {
  readonly statusCode = 404;
  readonly code = 'inquiry_not_found';
  constructor() {
    super('No such inquiry in this conversation');
    this.name = 'InquiryNotFoundError';
  }
}

export class InquiryNotSolvedError extends Error {
  readonly statusCode = 409;
  readonly code = 'inquiry_not_solved';
  constructor() {
    super(
      'Only a solved inquiry can become knowledge: its last answer must be complete results ' +
        '(not a clarification, an answer in progress, or a failed or stopped answer)',
    );
    this.name = 'InquiryNotSolvedError';
  }
}

/** The document bucket refused a write: nothing was recorded; trying again is safe. */
export class KnowledgeStoreUnavailableError extends Error {
  readonly statusCode = 503;
  readonly code = 'knowledge_store_unavailable';
  /** What `Retry-After` tells the client. */
  readonly retryAfterSeconds = 5;
  constructor(options?: { cause?: unknown }) {
    super('The Knowledge Base documents could not be written. Please try again.', options);
    this.name = 'KnowledgeStoreUnavailableError';
  }
}
