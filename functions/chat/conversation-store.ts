import type { TurnStatus } from '../stream/chat-events.js';
import type { Answer } from './answer-schema.js';
import type { Owner } from './owner.js';

export type TurnRole = 'user' | 'assistant';
/** question: opens an inquiry; option: a user reply to a clarification; clarification/answer: assistant turns. */
export type TurnKind = 'question' | 'option' | 'clarification' | 'answer';

export interface Turn {
  readonly seq: number;
  readonly role: TurnRole;
  readonly kind: TurnKind;
  readonly inquiryId: string;
  readonly text: string;
  readonly result?: Answer;
  readonly status: TurnStatus;
  readonly clientMessageId?: string;
  readonly createdAt: string;
  /** Assistant turns written by the local offline responder rather than a real model. */
  readonly offline?: boolean;
}

export interface ConversationSummary {
  readonly conversationId: string;
  readonly title: string;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Bumped by every change to the conversation or its turns. */
  readonly version: number;
  readonly turnCount: number;
  /** The inquiry still waiting for a `results` answer, if any (the working buffer). */
  readonly openInquiryId?: string;
}

export interface ConversationWithTurns {
  readonly conversation: ConversationSummary;
  readonly turns: readonly Turn[];
}

export interface AppendUserTurnInput {
  /** Absent: a new conversation is created in the same commit, titled from `text`. */
  readonly conversationId?: string;
  readonly text: string;
  /** Makes a retried POST idempotent: the same id never yields a second turn. */
  readonly clientMessageId?: string;
}

export interface AppendAssistantTurnInput {
  readonly conversationId: string;
  readonly inquiryId: string;
  readonly kind: 'clarification' | 'answer';
  readonly text: string;
  readonly result?: Answer;
  readonly status: TurnStatus;
  /** True for a `results` answer: the inquiry leaves the working buffer for the archive. */
  readonly closesInquiry: boolean;
  /** The answer came from the local offline responder (shown as such after a reload too). */
  readonly offline?: boolean;
}

export interface AppendResult {
  readonly conversation: ConversationSummary;
  readonly turn: Turn;
  /** True when `clientMessageId` matched an earlier turn, which is returned instead of a new one. */
  readonly duplicate: boolean;
}

export interface ListConversationsResult {
  readonly items: readonly ConversationSummary[];
  /** Opaque; pass back as `cursor` for the next page. */
  readonly nextCursor?: string;
}

/**
 * The conversation memory. Every method takes the owner from the verified identity; another
 * owner's conversation behaves exactly like a missing one (`ConversationNotFoundError`).
 */
export interface ConversationStore {
  appendUserTurn(owner: Owner, input: AppendUserTurnInput): Promise<AppendResult>;
  appendAssistantTurn(owner: Owner, input: AppendAssistantTurnInput): Promise<AppendResult>;
  /** The conversation (consistent read) — cheap; use for ETag/304. */
  getConversation(owner: Owner, conversationId: string): Promise<ConversationSummary>;
  /** Conversation and all turns in `seq` order, at one consistent version. */
  loadConversation(owner: Owner, conversationId: string): Promise<ConversationWithTurns>;
  listConversations(
    owner: Owner,
    options?: { limit?: number; cursor?: string },
  ): Promise<ListConversationsResult>;
  renameConversation(
    owner: Owner,
    conversationId: string,
    title: string,
  ): Promise<ConversationSummary>;
  deleteConversation(owner: Owner, conversationId: string): Promise<void>;
  /** Ask the generation in flight for `inquiryId` (or any, when omitted) to stop. Does not bump `version`. */
  requestStop(owner: Owner, conversationId: string): Promise<void>;
  /** True when a stop was requested after `since` (ISO time the generation started). */
  isStopRequested(owner: Owner, conversationId: string, since: string): Promise<boolean>;
}

export class ConversationNotFoundError extends Error {
  readonly statusCode = 404;
  constructor() {
    super('Conversation not found');
    this.name = 'ConversationNotFoundError';
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

/** Text or result too large to store (checked before writing; DynamoDB's 400 KB item limit). */
export class TurnTooLargeError extends Error {
  readonly statusCode = 413;
  constructor(message: string) {
    super(message);
    this.name = 'TurnTooLargeError';
  }
}

/** The `cursor` passed to `listConversations` was not one it returned. */
export class InvalidCursorError extends Error {
  readonly statusCode = 400;
  constructor() {
    super('Invalid cursor');
    this.name = 'InvalidCursorError';
  }
}
