import * as z from 'zod';
import { answerSchema } from '../../../functions/chat/answer-schema.js';
import { turnStatusSchema } from '../../../functions/stream/chat-events.js';

/**
 * Response shapes of the conversation routes. Validated at the edge so a server change shows up
 * as one clear error instead of `undefined` deep inside a component.
 */
export const conversationSummarySchema = z.object({
  conversationId: z.string(),
  title: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  version: z.number(),
  turnCount: z.number(),
});
export type ConversationSummary = z.infer<typeof conversationSummarySchema>;

export const conversationListSchema = z.object({
  items: z.array(conversationSummarySchema),
  nextCursor: z.string().optional(),
});
export type ConversationList = z.infer<typeof conversationListSchema>;

export const historyTurnSchema = z.object({
  seq: z.number(),
  role: z.enum(['user', 'assistant']),
  kind: z.enum(['question', 'option', 'clarification', 'answer']),
  inquiryId: z.string(),
  text: z.string(),
  result: answerSchema.optional(),
  status: turnStatusSchema,
  clientMessageId: z.string().optional(),
  createdAt: z.string(),
  offline: z.boolean().optional(),
});
export type HistoryTurn = z.infer<typeof historyTurnSchema>;

export const conversationDetailSchema = z.object({
  conversationId: z.string(),
  title: z.string(),
  version: z.number(),
  turns: z.array(historyTurnSchema),
});
export type ConversationDetail = z.infer<typeof conversationDetailSchema>;
