import * as z from 'zod';
import { deliveredAnswerSchema, MAX_RESULTS } from './answer.js';
import {
  attachmentReadingSchema,
  attachmentRefSchema,
  MAX_ATTACHMENTS_PER_MESSAGE,
} from './attachments.js';
import { turnStatusSchema } from './chat-events.js';
import { publishedKnowledgeSchema } from './knowledge.js';
import { MAX_MAIL_DRAFT_VERSIONS, mailDraftVersionSchema } from './mail-draft.js';
import { answerNoticesSchema } from './surges.js';
import { issueIdKind } from './ticket-references.js';
import { userTextSchema } from './user-text.js';

/**
 * The REST bodies of the conversation routes (`/api/conversations…`). The store's types, the
 * routes' responses and the web app's validation all derive from these schemas, so a field added
 * here reaches all three or fails to compile.
 */

/** question: opens an inquiry; option: a user reply to a clarification; clarification/answer: assistant turns. */
export const turnKindSchema = z.enum(['question', 'option', 'clarification', 'answer']);
export type TurnKind = z.infer<typeof turnKindSchema>;

export const turnRoleSchema = z.enum(['user', 'assistant']);
export type TurnRole = z.infer<typeof turnRoleSchema>;

/**
 * What one answer cost and took, stored with the assistant turn: the model's token counts and
 * the pipeline's timings in milliseconds (from the request: first token; per step: retrieval,
 * model). Absent on turns written before it existed and on answers the model never reported.
 * With prompt caching (ADR 0009) `inputTokens` is the uncached remainder and the cache counts
 * say what was read from and written to the cache; turns stored before caching lack them.
 */
export const turnUsageSchema = z.object({
  inputTokens: z.number().int().min(0),
  outputTokens: z.number().int().min(0),
  cacheReadInputTokens: z.number().int().min(0).optional(),
  cacheWriteInputTokens: z.number().int().min(0).optional(),
  timeToFirstTokenMs: z.number().int().min(0).optional(),
  retrievalMs: z.number().int().min(0).optional(),
  modelMs: z.number().int().min(0).optional(),
});
export type TurnUsage = z.infer<typeof turnUsageSchema>;

/** Why an answer did not help; only with a 👎. */
export const feedbackReasonSchema = z.enum(['wrong', 'incomplete', 'irrelevant_tickets', 'other']);
export type FeedbackReason = z.infer<typeof feedbackReasonSchema>;

export const MAX_FEEDBACK_COMMENT_LENGTH = 1000;

const feedbackFields = {
  rating: z.enum(['up', 'down']),
  reason: feedbackReasonSchema.optional(),
  comment: userTextSchema('comment', MAX_FEEDBACK_COMMENT_LENGTH).optional(),
  /**
   * The ticket cards that solved the inquiry ("this solved it"): ticket numbers as the answer's
   * cards carry them (canonical, of any source: ADR 0020), each at most once, all among that
   * answer's cards.
   */
  helpfulTicketIds: z
    .array(
      z
        .string()
        .refine(
          (issueId) => issueIdKind(issueId) !== undefined,
          'helpfulTicketIds holds ticket numbers as the cards carry them (1001, INC0012345, ITSD-123, ZD#35436)',
        ),
    )
    .max(MAX_RESULTS)
    .refine((ids) => new Set(ids).size === ids.length, 'helpfulTicketIds must not repeat a ticket')
    .optional(),
};

/**
 * Body of `POST /api/conversations/{id}/turns/{seq}/feedback`: one staff member's verdict on one
 * answer. A second post replaces the first (one feedback per user per answer).
 */
export const feedbackRequestSchema = z
  .object(feedbackFields)
  .strict()
  .refine((feedback) => feedback.reason === undefined || feedback.rating === 'down', {
    message: 'reason is only given with rating "down"',
    path: ['reason'],
  });
export type FeedbackRequest = z.infer<typeof feedbackRequestSchema>;

/** Feedback as stored on the answer turn and returned in `turns[].feedback`. */
export const answerFeedbackSchema = z.object({
  ...feedbackFields,
  /** When it was last given (a repeat replaces it). */
  updatedAt: z.string(),
});
export type AnswerFeedback = z.infer<typeof answerFeedbackSchema>;

/** One stored turn, as `GET /api/conversations/{id}` returns it. */
export const turnSchema = z.object({
  seq: z.number().int(),
  role: turnRoleSchema,
  kind: turnKindSchema,
  inquiryId: z.string(),
  text: z.string(),
  result: deliveredAnswerSchema.optional(),
  status: turnStatusSchema,
  /** Lets the page retry a failed answer with the same id after a reload. */
  clientMessageId: z.string().optional(),
  createdAt: z.string(),
  /** Assistant turns: the model that wrote the answer. */
  modelId: z.string().optional(),
  /** Assistant turns: tokens and timings of the answer. */
  usage: turnUsageSchema.optional(),
  /** Answer turns: the owner's latest feedback on this answer. */
  feedback: answerFeedbackSchema.optional(),
  /**
   * User turns sent as a regenerate or edit: the seq of the user turn this one replaces. That
   * turn and its answer stay in `turns` as an earlier version; context uses only the newest.
   */
  supersedes: z.number().int().optional(),
  /**
   * Answer turns: the e-mail draft's versions after the original (`result.mail_draft`, version
   * 1), oldest first — each edit and refinement (ADR 0023).
   */
  mailDraftVersions: z.array(mailDraftVersionSchema).max(MAX_MAIL_DRAFT_VERSIONS).optional(),
  /** Answer turns: how often staff copied the draft (any version). */
  mailDraftCopies: z.number().int().min(0).optional(),
  /** Answer turns: how often staff opened the draft in their mail client (`mailto:`). */
  mailDraftMailOpens: z.number().int().min(0).optional(),
  /** User turns: the files sent with the message (ADR 0030); the bytes are `GET /api/attachments/{id}`. */
  attachments: z.array(attachmentRefSchema).max(MAX_ATTACHMENTS_PER_MESSAGE).optional(),
  /** Assistant turns answering a message with images: what the vision step read from them. */
  attachmentReading: attachmentReadingSchema.optional(),
  /**
   * Answer turns: the surge notice and known issues streamed before this answer (ADR 0033), as
   * they were then. A regenerate or edit is a new answer with its own.
   */
  notices: answerNoticesSchema.optional(),
});
export type Turn = z.infer<typeof turnSchema>;

/** A conversation in the list (and the body of a rename). */
export const conversationSummarySchema = z.object({
  conversationId: z.string(),
  title: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Bumped by every change to the conversation or its turns; also its ETag. */
  version: z.number().int(),
  turnCount: z.number().int(),
});
export type ConversationSummary = z.infer<typeof conversationSummarySchema>;

/** `GET /api/conversations`: newest activity first. */
export const conversationListSchema = z.object({
  items: z.array(conversationSummarySchema),
  /** Opaque; pass back as `cursor` for the next page. */
  nextCursor: z.string().optional(),
});
export type ConversationList = z.infer<typeof conversationListSchema>;

/** `GET /api/conversations/{id}`: the conversation and all its turns at one version. */
export const conversationDetailSchema = z.object({
  conversationId: z.string(),
  title: z.string(),
  version: z.number().int(),
  turns: z.array(turnSchema),
  /**
   * An answer is being generated for the user turn `seq` (by a request this page may not have
   * made — another tab, or before a reload) and will be stored by `until` at the latest.
   */
  answering: z.object({ seq: z.number().int(), until: z.string() }).optional(),
  /** Inquiries of this conversation published as knowledge tickets, oldest first. */
  knowledge: z.array(publishedKnowledgeSchema).optional(),
});
export type ConversationDetail = z.infer<typeof conversationDetailSchema>;

/**
 * Body of `POST /api/conversations/{id}/stop`: the answer to stop, named by its user turn
 * (`meta.userSeq` of the stream being stopped). A stop reaches that answer only — never a later
 * message's, however late it lands.
 */
export const stopRequestSchema = z
  .object({ userSeq: z.number().int().min(1).max(999_999_999) })
  .strict();
export type StopRequest = z.infer<typeof stopRequestSchema>;

/** Query of `GET /api/conversations`. */
export const listConversationsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(30),
  cursor: z.string().max(2000).optional(),
  /**
   * Search: conversations whose title or messages contain every word of `q` (ignoring case and
   * full-/half-width differences). The cursor continues the same search.
   */
  q: z.string().max(200).optional(),
});

export const MAX_TITLE_LENGTH = 200;

/** Body of `PATCH /api/conversations/{id}`. */
export const renameConversationSchema = z
  .object({ title: userTextSchema('title', MAX_TITLE_LENGTH) })
  .strict();
