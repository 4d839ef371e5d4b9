import * as z from 'zod';
import { deliveredAnswerSchema } from './answer.js';
import { turnStatusSchema } from './chat-events.js';
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
});
export type ConversationDetail = z.infer<typeof conversationDetailSchema>;

/** Query of `GET /api/conversations`. */
export const listConversationsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(30),
  cursor: z.string().max(2000).optional(),
});

export const MAX_TITLE_LENGTH = 200;

/** Body of `PATCH /api/conversations/{id}`. */
export const renameConversationSchema = z
  .object({ title: userTextSchema('title', MAX_TITLE_LENGTH) })
  .strict();
