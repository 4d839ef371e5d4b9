import * as z from 'zod';
import { deliveredAnswerSchema, ticketResultSchema } from './answer.js';
import { streamErrorSchema } from './errors.js';
import { handoffEventSchemas } from './handoff.js';
import { ticketDraftEventSchema } from './knowledge.js';
import { storedMailDraftSchema } from './mail-draft.js';

/**
 * The SSE contract between the API function and the web app: one zod schema per event name.
 * Both sides import this file; TypeScript types are derived from it.
 */
export const progressStepSchema = z.enum(['analyzing', 'retrieving', 'fetching', 'generating']);
export type ProgressStep = z.infer<typeof progressStepSchema>;

/** Final state of an assistant turn. `complete` also marks stored user turns. */
export const turnStatusSchema = z.enum(['complete', 'truncated', 'failed', 'stopped']);
export type TurnStatus = z.infer<typeof turnStatusSchema>;

/**
 * One retrieved ticket as the `kb_chunks` event lists it. Field names follow the tool schema
 * (`issue_id`, snake_case), as in `ticket` and `result`.
 */
export const kbChunkSchema = z.object({
  issue_id: z.string(),
  subject: z.string(),
  score: z.number(),
  preview: z.string(),
});
export type KbChunk = z.infer<typeof kbChunkSchema>;

export const chatEventSchemas = {
  meta: z.object({
    conversationId: z.string(),
    inquiryId: z.string(),
    version: z.number().int(),
    /** The model writing this answer (the web app labels the local offline responder's). */
    modelId: z.string(),
    /**
     * The stored user turn this answer is for: what a regenerate or edit of it names as
     * `supersedes`. Optional only so that streams recorded before it existed still parse.
     */
    userSeq: z.number().int().optional(),
  }),
  progress: z.object({ step: progressStepSchema }),
  kb_query: z.object({ query: z.string() }),
  kb_chunks: z.object({ chunks: z.array(kbChunkSchema) }),
  token: z.object({ content: z.string() }),
  ticket: ticketResultSchema,
  result: deliveredAnswerSchema.extend({
    conversationId: z.string(),
    version: z.number().int(),
    /** The stored answer turn: what feedback (`…/turns/{seq}/feedback`) names. */
    seq: z.number().int(),
    status: z.enum(['complete', 'truncated', 'stopped']),
  }),
  /**
   * Knowledge capture's draft stream (`…/inquiries/{inquiryId}/knowledge-draft`): text of the
   * draft's `subject` or `inquiry` as it arrives, each resolution step when it is complete, then
   * the whole draft. The chat stream never sends these.
   */
  draft_text: z.object({ field: z.enum(['subject', 'inquiry']), content: z.string() }),
  draft_step: z.object({ index: z.number().int().min(0), text: z.string() }),
  draft: ticketDraftEventSchema,
  /**
   * The hand-off summary's stream (`…/inquiries/{inquiryId}/handoff`, ADR 0024): `summary_text`,
   * `summary_item`, then `summary`. The chat stream never sends these.
   */
  ...handoffEventSchemas,
  /**
   * The mail draft's refine stream (`…/turns/{seq}/mail-draft/refine`, ADR 0023): the refined
   * text as it arrives (a preview: the links and references are checked once it is complete),
   * then the version as stored. The chat stream never sends these.
   */
  mail_draft_token: z.object({ content: z.string() }),
  mail_draft_version: storedMailDraftSchema,
  /** The stream's last event when it fails; the code is from the error contract (`errors.ts`). */
  error: streamErrorSchema,
} as const;

export type ChatEventName = keyof typeof chatEventSchemas;
export type ChatEventData<N extends ChatEventName> = z.infer<(typeof chatEventSchemas)[N]>;
/** A decoded event as a discriminated union: `{ event: 'token', data: { content } }`. */
export type ChatEvent = {
  [N in ChatEventName]: { event: N; data: ChatEventData<N> };
}[ChatEventName];

export function isChatEventName(name: string): name is ChatEventName {
  return Object.hasOwn(chatEventSchemas, name);
}
