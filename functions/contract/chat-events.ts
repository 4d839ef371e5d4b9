import * as z from 'zod';
import { deliveredAnswerSchema, ticketResultSchema } from './answer.js';
import { streamErrorSchema } from './errors.js';
import { handoffEventSchemas } from './handoff.js';
import { ticketDraftEventSchema } from './knowledge.js';
import { storedMailDraftSchema } from './mail-draft.js';
import { knownIssueNoticeSchema, surgeNoticeSchema } from './surges.js';

/**
 * The SSE contract between the API function and the web app: one zod schema per event name, and
 * each stream's own set of them — the chat, the knowledge draft, the mail draft's refinement,
 * the hand-off summary — so a route that sends another stream's event fails the typecheck, and
 * a page reading one stream ignores the others'. `meta`, `progress` and `error` are every
 * stream's. Both sides import this file; TypeScript types are derived from it.
 */
export const progressStepSchema = z.enum([
  'analyzing',
  'retrieving',
  'fetching',
  'generating',
  /** The vision step reads the inquiry's images before retrieval (ADR 0030). */
  'reading_attachment',
]);
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

/** What every stream sends: its ids first, its progress, and its last event when it fails. */
const sharedEventSchemas = {
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
  /** The stream's last event when it fails; the code is from the error contract (`errors.ts`). */
  error: streamErrorSchema,
} as const;

/** `POST /api/chat`: the answer. */
export const chatEventSchemas = {
  ...sharedEventSchemas,
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
  /** Many staff are asking about this topic now (ADR 0033); before the first token. */
  surge: surgeNoticeSchema,
  /** An open known issue a lead published that matches the inquiry (ADR 0033); before the first token. */
  known_issue: knownIssueNoticeSchema,
} as const;

/**
 * Knowledge capture's draft stream (`…/inquiries/{inquiryId}/knowledge-draft`): text of the
 * draft's `subject` or `inquiry` as it arrives, each resolution step when it is complete, then
 * the whole draft.
 */
export const knowledgeDraftEventSchemas = {
  ...sharedEventSchemas,
  draft_text: z.object({ field: z.enum(['subject', 'inquiry']), content: z.string() }),
  draft_step: z.object({ index: z.number().int().min(0), text: z.string() }),
  draft: ticketDraftEventSchema,
} as const;

/**
 * The hand-off summary's stream (`…/inquiries/{inquiryId}/handoff`, ADR 0024): `summary_text`,
 * `summary_item`, then `summary`.
 */
export const handoffStreamEventSchemas = {
  ...sharedEventSchemas,
  ...handoffEventSchemas,
} as const;

/**
 * The mail draft's refine stream (`…/turns/{seq}/mail-draft/refine`, ADR 0023): the refined text
 * as it arrives (a preview: the links and references are checked once it is complete), then the
 * version as stored.
 */
export const mailDraftRefineEventSchemas = {
  ...sharedEventSchemas,
  mail_draft_token: z.object({ content: z.string() }),
  mail_draft_version: storedMailDraftSchema,
} as const;

/** Every stream's events: what the SSE encoder validates against. */
export const streamEventSchemas = {
  ...chatEventSchemas,
  ...knowledgeDraftEventSchemas,
  ...handoffStreamEventSchemas,
  ...mailDraftRefineEventSchemas,
} as const;

/** A stream's set of event schemas, by event name. */
export type EventSchemas = Readonly<Record<string, z.ZodType>>;

/** A decoded event of `S` as a discriminated union: `{ event: 'token', data: { content } }`. */
export type EventOf<S extends EventSchemas> = {
  [N in keyof S & string]: { event: N; data: z.infer<S[N]> };
}[keyof S & string];

export type ChatEvent = EventOf<typeof chatEventSchemas>;
export type KnowledgeDraftStreamEvent = EventOf<typeof knowledgeDraftEventSchemas>;
export type HandoffStreamEvent = EventOf<typeof handoffStreamEventSchemas>;
export type MailDraftRefineStreamEvent = EventOf<typeof mailDraftRefineEventSchemas>;
/** Any stream's event. */
export type StreamEvent = EventOf<typeof streamEventSchemas>;
export type StreamEventName = keyof typeof streamEventSchemas;
export type StreamEventData<N extends StreamEventName> = z.infer<(typeof streamEventSchemas)[N]>;

export function isStreamEventName(name: string): name is StreamEventName {
  return Object.hasOwn(streamEventSchemas, name);
}
