import type { DeliveredAnswer, TicketResult } from '../../../functions/contract/answer.js';
import type { AttachmentRef } from '../../../functions/contract/attachments.js';
import type { KbChunk, ProgressStep } from '../../../functions/contract/chat-events.js';
import type { AnswerFeedback } from '../../../functions/contract/conversations.js';
import type { PublishedKnowledge } from '../../../functions/contract/knowledge.js';
import type { MailDraftVersion } from '../../../functions/contract/mail-draft.js';
import type { KnownIssueNotice, SurgeNotice } from '../../../functions/contract/surges.js';
import type { FailureCode } from '../api/api-error.js';

/** What the user sent; `inquiryId` is known once the server's `meta` event names it. */
export interface UserBubble {
  readonly kind: 'user';
  readonly id: string;
  readonly text: string;
  readonly inquiryId?: string;
  /** Re-sent unchanged on retry so the server recognises the same turn. */
  readonly clientMessageId?: string;
  /** The stored turn's number (from the history, or `meta` while live): what an edit supersedes. */
  readonly seq?: number;
  /** A regenerate or edit: the seq of the user turn this one replaces (ADR 0010). */
  readonly supersedes?: number;
  /** The files sent with the question (ADR 0030). */
  readonly attachments?: readonly AttachmentRef[];
}

/**
 * Lifecycle of an assistant bubble. `streaming` covers waiting for the first token too;
 * the other values mirror the stored turn status so a live bubble and a reloaded one agree.
 */
export type AssistantStatus = 'streaming' | 'complete' | 'truncated' | 'stopped' | 'failed';

/** A user-facing error: a code the UI translates, plus the server's words as a fallback. */
export interface BubbleError {
  readonly code: FailureCode;
  readonly message: string;
  readonly retryable: boolean;
  readonly httpStatus?: number;
}

/** One assistant answer, from the first progress step to the validated result. */
export interface AssistantBubble {
  readonly kind: 'assistant';
  /** The request id while live; `turn-<seq>` when rebuilt from history. */
  readonly id: string;
  readonly inquiryId?: string;
  readonly status: AssistantStatus;
  readonly steps: readonly ProgressStep[];
  readonly kbQuery?: string;
  readonly kbChunks?: readonly KbChunk[];
  /** Many staff are asking about this topic (ADR 0033): shown above the answer. */
  readonly surge?: SurgeNotice;
  /** The leads' known issues this inquiry matches (ADR 0033): shown above the answer. */
  readonly knownIssues?: readonly KnownIssueNotice[];
  /**
   * The notices come from the stored turn (the history, not the stream): they are as they were
   * when the answer was written, and a known issue may have been closed since.
   */
  readonly noticesFromHistory?: boolean;
  /** The advice markdown: grows token by token, kept when the result arrives. */
  readonly text: string;
  /** Ticket cards in arrival order; replaced by `result.results` once validated. */
  readonly tickets: readonly TicketResult[];
  readonly result?: DeliveredAnswer;
  readonly error?: BubbleError;
  /** The model that wrote the answer (from `meta`, or the stored turn after a reload). */
  readonly modelId?: string;
  /**
   * Set on a placeholder for an answer another request is generating (`answering` of a loaded
   * conversation: a reload mid-answer, another tab): the deadline (ISO) by which it is stored.
   */
  readonly inFlightUntil?: string;
  /** The stored turn's number, once the server stored it (`result`, or the history). */
  readonly seq?: number;
  /** The staff member's verdict on this answer, as stored. */
  readonly feedback?: AnswerFeedback;
  /** The e-mail draft's stored versions after the original (ADR 0023), as the history has them. */
  readonly mailDraftVersions?: readonly MailDraftVersion[];
  /** The message that produced this answer, for retry with the same clientMessageId. */
  readonly request?: ChatSend;
}

export type Bubble = UserBubble | AssistantBubble;

/** One message as sent, enough to send it again unchanged (a retry is the same message). */
export interface ChatSend {
  readonly message: string;
  readonly clientMessageId: string;
  /** A regenerate or edit of the user turn with this seq. */
  readonly supersedes?: number;
  /** The files sent with it, sent again as `attachmentIds`. */
  readonly attachments?: readonly AttachmentRef[];
}

/** Everything the conversation view shows, independent of React. */
export interface ConversationView {
  readonly conversationId?: string;
  readonly title?: string;
  readonly version?: number;
  readonly bubbles: readonly Bubble[];
  /** The request currently streaming into this conversation, if any. */
  readonly activeRequestId?: string;
  /** Inquiries of this conversation published as knowledge tickets (ADR 0011). */
  readonly knowledge?: readonly PublishedKnowledge[];
}

export const emptyConversationView: ConversationView = { bubbles: [] };
