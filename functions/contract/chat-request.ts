import * as z from 'zod';
import { attachmentIdsSchema } from './attachments.js';
import { conversationIdSchema } from './ids.js';
import { userTextSchema } from './user-text.js';

export const MAX_MESSAGE_LENGTH = 4000;

/** Body of `POST /api/chat`. The owner is never part of it: it comes from the verified identity. */
export const chatRequestSchema = z
  .object({
    conversationId: conversationIdSchema.optional(),
    /** The question; may be left out when `attachmentIds` carries the inquiry (a screenshot). */
    message: userTextSchema('message', MAX_MESSAGE_LENGTH).optional(),
    /**
     * Files uploaded with `POST /api/attachments`, the caller's own (404 `attachment_not_found`
     * otherwise), at most five (ADR 0030). A regenerate that leaves them out keeps the replaced
     * turn's; an edit sends the ones it keeps (`[]`: none).
     */
    attachmentIds: attachmentIdsSchema.optional(),
    clientMessageId: z
      .string()
      .regex(/^[A-Za-z0-9_-]{8,64}$/, 'clientMessageId must be 8-64 URL-safe characters')
      .optional(),
    /**
     * `continue` (default): a reply to a pending clarification continues its inquiry. `new`:
     * the message starts a new inquiry even while a clarification awaits its reply.
     */
    inquiry: z.enum(['continue', 'new']).optional(),
    /**
     * Regenerate or edit: the seq of the conversation's last user turn, which this message
     * replaces (the same text regenerates its answer, another text edits the question). The old
     * turn and its answer are kept as an earlier version; only the latest user turn can be
     * superseded (409 `not_latest_question` otherwise). Needs `conversationId`.
     */
    supersedes: z.number().int().min(1).optional(),
  })
  .strict()
  .refine((request) => request.message !== undefined || (request.attachmentIds?.length ?? 0) > 0, {
    message: 'message is required unless attachmentIds names a file',
    path: ['message'],
  })
  .refine((request) => request.supersedes === undefined || request.conversationId !== undefined, {
    message: 'supersedes needs the conversationId of the turn it replaces',
    path: ['supersedes'],
  })
  .refine((request) => request.supersedes === undefined || request.inquiry === undefined, {
    message:
      'supersedes keeps the inquiry of the turn it replaces; inquiry cannot be given with it',
    path: ['inquiry'],
  });

export type ChatRequest = z.infer<typeof chatRequestSchema>;
