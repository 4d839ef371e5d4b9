import * as z from 'zod';
import { findUnverifiedLinks } from './links.js';
import { userTextSchema } from './user-text.js';

/**
 * Knowledge capture (docs/adr/0011-knowledge-capture.md): a solved inquiry becomes a ticket of
 * the Knowledge Base. The bodies of `POST /api/conversations/{id}/inquiries/{inquiryId}/draft`
 * (the streamed draft's final `draft` event), `POST /api/knowledge` and `GET /api/me` live here;
 * the server validates with them and the web app's form checks with the same schemas.
 */

/**
 * The categories of the tickets in `data/tickets` (a test keeps the two equal). A published
 * ticket takes one of them, so staff filtering and the retrieval metadata stay one vocabulary.
 */
export const TICKET_CATEGORIES = [
  'Account',
  'Box',
  'HR',
  'Hardware',
  'Mail',
  'Network',
  'Onboarding',
  'OneDrive',
  'PC',
  'Phone',
  'Printer',
  'SSO',
  'Salesforce',
  'Security',
  'SharePoint',
  'Slack',
  'Software',
  'Teams',
  'VPN',
  'Zoom',
] as const;
export const ticketCategorySchema = z.enum(TICKET_CATEGORIES, {
  error: () => `category must be one of ${TICKET_CATEGORIES.join(', ')}`,
});
export type TicketCategory = z.infer<typeof ticketCategorySchema>;

export const MAX_SUBJECT_LENGTH = 200;
export const MAX_INQUIRY_LENGTH = 4000;
export const MAX_STEP_LENGTH = 1000;
export const MAX_RESOLUTION_STEPS = 20;

/** The ticket a staff member publishes: what the form edits and `POST /api/knowledge` takes. */
export const ticketDraftFields = {
  /** One line: it becomes the document's heading. */
  subject: userTextSchema('subject', MAX_SUBJECT_LENGTH).refine(
    (subject) => !/[\r\n]/.test(subject),
    'subject must be one line',
  ),
  category: ticketCategorySchema,
  /** What the requester asked, without names or contact details. */
  inquiry: userTextSchema('inquiry', MAX_INQUIRY_LENGTH),
  /** The resolution as ordered steps; each becomes one numbered line. */
  resolution: z
    .array(userTextSchema('each resolution step', MAX_STEP_LENGTH))
    .min(1, 'resolution needs at least one step')
    .max(MAX_RESOLUTION_STEPS, `resolution has at most ${MAX_RESOLUTION_STEPS} steps`),
  /** Restricted tickets are stored but never retrieved (as every restricted ticket). */
  restricted: z.boolean().default(false),
};

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** Body of `POST /api/knowledge`: the edited draft and the inquiry it comes from. */
export const publishKnowledgeRequestSchema = z
  .object({
    conversationId: z.string().regex(ULID, 'conversationId must be a ULID'),
    inquiryId: z.string().regex(ULID, 'inquiryId must be a ULID'),
    ...ticketDraftFields,
  })
  .strict();
export type PublishKnowledgeRequest = z.infer<typeof publishKnowledgeRequestSchema>;

/**
 * `201` of `POST /api/knowledge`. `ingestion`: `started` when a Knowledge Base sync was started
 * (the ticket is searchable when it finishes; at once locally); `pending` when one was already
 * running and did not accept another within the request — the next sync picks the ticket up.
 */
export const publishKnowledgeResponseSchema = z.object({
  issueId: z.string(),
  ingestion: z.enum(['started', 'pending']),
  /**
   * Links in the published ticket (subject, inquiry, steps) whose domain is not on the
   * deployment's allow-list (`links.ts`), as written: a warning for the editor, not a refusal —
   * answers citing the ticket keep them out of mail drafts and to-dos and mark them in the advice.
   */
  unverifiedLinks: z.array(z.string()).default([]),
  /**
   * Personal data the publish replaced by placeholders per kind (`name`, `email`, `phone`,
   * `secret`, configured kinds), after the draft's own scrub: above 0 when the editor typed
   * something back that the scrub removes (ADR 0019). Absent from servers older than the scrub.
   */
  personalDataRemoved: z.record(z.string(), z.number().int().min(0)).optional(),
});
export type PublishKnowledgeResponse = z.infer<typeof publishKnowledgeResponseSchema>;

/** A published inquiry, as `GET /api/conversations/{id}` lists it in `knowledge`. */
export const publishedKnowledgeSchema = z.object({
  inquiryId: z.string(),
  issueId: z.string(),
  subject: z.string(),
  restricted: z.boolean(),
  publishedAt: z.string(),
});
export type PublishedKnowledge = z.infer<typeof publishedKnowledgeSchema>;

/**
 * The streamed draft's final value (the `draft` event). Lenient where the model may fall short
 * (an empty field, a category outside the list): staff complete it in the form, and publishing
 * validates strictly. `complete` is false when the model stopped early or wrote invalid fields.
 */
export const ticketDraftEventSchema = z.object({
  subject: z.string(),
  category: ticketCategorySchema.optional(),
  inquiry: z.string(),
  resolution: z.array(z.string()),
  restricted: z.boolean(),
  complete: z.boolean(),
});
export type TicketDraftEvent = z.infer<typeof ticketDraftEventSchema>;

/** `GET /api/me`: who the caller is to this app (the web app shows editor actions only to editors). */
export const callerSchema = z.object({
  userId: z.string(),
  canPublishKnowledge: z.boolean(),
  /**
   * Domains links may point to (`ALLOWED_LINK_DOMAINS`): the knowledge form warns about links
   * elsewhere before publishing. Absent from servers older than the check.
   */
  allowedLinkDomains: z.array(z.string()).optional(),
});
export type Caller = z.infer<typeof callerSchema>;

/**
 * The links of a ticket (subject, inquiry, steps) whose domain is not on `allowed`, as written,
 * each once, in order: what `POST /api/knowledge` answers as `unverifiedLinks`, and what the
 * knowledge form warns about before publishing — one function, so the two never disagree.
 *
 * @example
 * findUnverifiedTicketLinks(
 *   { subject: 'VPN', inquiry: '', resolution: ['reset at http://evil.example'] },
 *   ['example.com'],
 * ); // ['http://evil.example']
 */
export function findUnverifiedTicketLinks(
  ticket: {
    readonly subject: string;
    readonly inquiry: string;
    readonly resolution: readonly string[];
  },
  allowed: readonly string[],
): string[] {
  const texts = [ticket.subject, ticket.inquiry, ...ticket.resolution];
  return [...new Set(texts.flatMap((text) => findUnverifiedLinks(text, allowed)))];
}

/** Tool name of the forced draft tool. */
export const DRAFT_TOOL_NAME = 'submit_ticket_draft';

/** The fields of a stored turn the publishing rule reads. */
interface TurnForPublishing {
  readonly seq: number;
  readonly role: 'user' | 'assistant';
  readonly kind: string;
  readonly inquiryId: string;
  readonly status: string;
  readonly result?: { readonly response_type?: string };
}

/**
 * Whether an inquiry is solved and can become knowledge: its last turn is a complete `results`
 * answer. Not while a clarification awaits its reply, an answer is being generated (the last
 * turn is the user's) or after an answer that failed, was stopped or truncated. With regenerate
 * and edit (ADR 0010) the newest version is the last turn, so this judges the current answer.
 * The server enforces it (409 `inquiry_not_solved`); the web app offers the action by it.
 */
export function isSolvedInquiry(turns: readonly TurnForPublishing[], inquiryId: string): boolean {
  let last: TurnForPublishing | undefined;
  for (const turn of turns) {
    if (turn.inquiryId === inquiryId && (last === undefined || turn.seq > last.seq)) last = turn;
  }
  return (
    last !== undefined &&
    last.role === 'assistant' &&
    last.kind === 'answer' &&
    last.status === 'complete' &&
    last.result?.response_type === 'results'
  );
}
