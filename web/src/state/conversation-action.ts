import type { AttachmentRef } from '../../../functions/contract/attachments.js';
import type { ChatEvent } from '../../../functions/contract/chat-events.js';
import type {
  AnswerFeedback,
  ConversationDetail,
} from '../../../functions/contract/conversations.js';
import type { PublishedKnowledge } from '../../../functions/contract/knowledge.js';
import type { BubbleError } from './bubble.js';

/** Everything that can change one conversation's view. Plain data, so the reducer stays pure. */
export type ConversationAction =
  /** The user sent a message (or retried one: same clientMessageId). */
  | {
      readonly type: 'send';
      readonly requestId: string;
      readonly message: string;
      readonly clientMessageId: string;
      /** A regenerate or edit: the seq of the user turn the message replaces. */
      readonly supersedes?: number;
      readonly attachments?: readonly AttachmentRef[];
    }
  /** One validated SSE event of the request `requestId`. */
  | { readonly type: 'event'; readonly requestId: string; readonly event: ChatEvent }
  /** The request failed before or outside the event stream (HTTP status, network). */
  | { readonly type: 'request_failed'; readonly requestId: string; readonly error: BubbleError }
  /** The stream ended without `result` or `error`: the user stopped it or the connection dropped. */
  | { readonly type: 'stream_ended'; readonly requestId: string; readonly stopped: boolean }
  /** The stored conversation, from `GET /conversations/{id}`. */
  | { readonly type: 'history'; readonly detail: ConversationDetail }
  | { readonly type: 'renamed'; readonly title: string }
  /** The server stored feedback on the answer turn `seq`; the conversation is now at `version`. */
  | {
      readonly type: 'feedback';
      readonly seq: number;
      readonly feedback: AnswerFeedback;
      readonly version: number;
    }
  /** An inquiry was published as a knowledge ticket (before the reloaded conversation says so). */
  | { readonly type: 'published'; readonly knowledge: PublishedKnowledge };
