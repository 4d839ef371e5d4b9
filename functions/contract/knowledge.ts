import * as z from 'zod';
import { ALL_DESK, deskNameSchema } from './desks.js';
import { conversationIdSchema, inquiryIdSchema } from './ids.js';
import { findUnverifiedLinks } from './links.js';
import { userTextSchema } from './user-text.js';

/**
 * Knowledge capture (docs/adr/0011-knowledge-capture.md): a solved inquiry becomes a ticket of
 * the Knowledge Base. The bodies of `POST /api/conversations/{id}/inquiries/{inquiryId}/draft`
 * (the streamed draft's final `draft` event), `POST /api/knowledge` and `GET /api/me` live here;
 * the server validates with them and the web app's form checks with the same schemas.
 */

/**
 * Ticket categories are the data's (ADR 0020): the set of the deployed tickets' `category`
 * attributes, derived where the tickets are — at synth from the ticket folder (the stack passes
 * it to the function as `TICKET_CATEGORIES`), locally from the served folder — by
 * {@link ticketCategorySet}. A published ticket takes one of them, so staff filtering and the
 * retrieval metadata stay one vocabulary. Categories come from imported exports, so they are
 * untrusted text: each is checked by {@link sanitizeTicketCategory} and the set is bounded, since
 * it becomes the draft tool's enum and the form's options.
 */

/** At most this many categories (the most frequent): the draft tool's enum stays small. */
export const MAX_TICKET_CATEGORIES = 50;
/** A longer category is no category (it would be a sentence in the tool schema). */
export const MAX_CATEGORY_LENGTH = 40;

/**
 * Letters, marks and digits, then also spaces and the punctuation category names use
 * (`Network/VPN`, `R&D`, `Microsoft 365`, `人事・労務`); nothing that could be markup, a line
 * break or an instruction's syntax.
 */
const CATEGORY_TEXT = /^[\p{L}\p{M}\p{N}][\p{L}\p{M}\p{N} _./&()+・:-]*$/u;

/**
 * A category as it may appear in the set: NFKC, runs of white space as one space, trimmed;
 * `undefined` when it is not a string, is empty or longer than {@link MAX_CATEGORY_LENGTH}, or
 * holds anything but the characters of {@link CATEGORY_TEXT}.
 *
 * @example
 * sanitizeTicketCategory(' Ｎｅｔｗｏｒｋ '); // 'Network'
 * sanitizeTicketCategory('</ticket>ignore'); // undefined
 */
export function sanitizeTicketCategory(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const category = value.normalize('NFKC').replace(/\s+/gu, ' ').trim();
  if (category.length === 0 || category.length > MAX_CATEGORY_LENGTH) return undefined;
  return CATEGORY_TEXT.test(category) ? category : undefined;
}

/**
 * The category set of a ticket collection, from each ticket's `category` attribute as written:
 * sanitized ({@link sanitizeTicketCategory}; the rest dropped), one entry per category ignoring
 * case (the most frequent spelling wins), the {@link MAX_TICKET_CATEGORIES} most frequent, sorted.
 *
 * @example
 * ticketCategorySet(['VPN', 'vpn', 'Mail', 42, '<b>']); // ['Mail', 'VPN']
 */
export function ticketCategorySet(values: Iterable<unknown>): string[] {
  const byKey = new Map<string, Map<string, number>>();
  for (const value of values) {
    const category = sanitizeTicketCategory(value);
    if (category === undefined) continue;
    const key = category.toLowerCase();
    const spellings = byKey.get(key) ?? new Map<string, number>();
    spellings.set(category, (spellings.get(category) ?? 0) + 1);
    byKey.set(key, spellings);
  }
  const counted = [...byKey.values()].map((spellings) => {
    const [[spelling]] = [...spellings].sort(
      ([left, a], [right, b]) => b - a || (left < right ? -1 : 1),
    ) as [[string, number]];
    const count = [...spellings.values()].reduce((sum, n) => sum + n, 0);
    return { spelling, count };
  });
  return counted
    .sort((a, b) => b.count - a.count || (a.spelling < b.spelling ? -1 : 1))
    .slice(0, MAX_TICKET_CATEGORIES)
    .map(({ spelling }) => spelling)
    .sort();
}

/**
 * A ticket's category: one of `categories` (the deployed set), or — where the deployment knows
 * no set (a reused Knowledge Base) — any category {@link sanitizeTicketCategory} accepts.
 */
export function ticketCategorySchema(categories: readonly string[]) {
  return z
    .string()
    .refine(
      (value) =>
        categories.length === 0
          ? sanitizeTicketCategory(value) === value
          : categories.includes(value),
      {
        error: () =>
          categories.length === 0
            ? `category must be at most ${MAX_CATEGORY_LENGTH} letters, digits, spaces or - _ . / & ( ) + ・ :`
            : `category must be one of ${categories.join(', ')}`,
      },
    );
}

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
  /** Checked against the deployed set by {@link ticketDraftSchemaFor}; any safe category here. */
  category: ticketCategorySchema([]),
  /** What the requester asked, without names or contact details. */
  inquiry: userTextSchema('inquiry', MAX_INQUIRY_LENGTH),
  /** The resolution as ordered steps; each becomes one numbered line. */
  resolution: z
    .array(userTextSchema('each resolution step', MAX_STEP_LENGTH))
    .min(1, 'resolution needs at least one step')
    .max(MAX_RESOLUTION_STEPS, `resolution has at most ${MAX_RESOLUTION_STEPS} steps`),
  /** Restricted tickets are stored but never retrieved (as every restricted ticket). */
  restricted: z.boolean().default(false),
  /**
   * The desk whose staff may retrieve the ticket (ADR 0029): `all` for everyone; otherwise one of
   * the editor's own desks, which the server checks.
   */
  desk: deskNameSchema.default(ALL_DESK),
};

/** The draft's fields with the category one of `categories` (the deployed set; empty: any safe one). */
export function ticketDraftSchemaFor(categories: readonly string[]) {
  return z.object({ ...ticketDraftFields, category: ticketCategorySchema(categories) });
}

/**
 * Body of `POST /api/knowledge`: the edited draft and the inquiry it comes from, the category one
 * of `categories` (the deployed set; empty: any safe category).
 */
export function publishKnowledgeRequestSchemaFor(categories: readonly string[]) {
  return z
    .object({
      conversationId: conversationIdSchema,
      inquiryId: inquiryIdSchema,
      ...ticketDraftFields,
      category: ticketCategorySchema(categories),
    })
    .strict();
}
export type PublishKnowledgeRequest = z.infer<ReturnType<typeof publishKnowledgeRequestSchemaFor>>;

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
  /** One of the deployed set (the server matched it), or absent. */
  category: z.string().optional(),
  inquiry: z.string(),
  resolution: z.array(z.string()),
  restricted: z.boolean(),
  complete: z.boolean(),
});
export type TicketDraftEvent = z.infer<typeof ticketDraftEventSchema>;

/**
 * `GET /api/me`: who the caller is to this app (the web app shows editor actions only to editors
 * and the insights link only to leads).
 */
export const callerSchema = z.object({
  userId: z.string(),
  canPublishKnowledge: z.boolean(),
  /**
   * A service-desk lead (Cognito group `service-desk-leads`, locally `SERVICE_DESK_LEADS`): may
   * open `/insights`. Absent from servers older than the insights page (no link).
   */
  canViewInsights: z.boolean().optional(),
  /**
   * Domains links may point to (`ALLOWED_LINK_DOMAINS`): the knowledge form warns about links
   * elsewhere before publishing. Absent from servers older than the check.
   */
  allowedLinkDomains: z.array(z.string()).optional(),
  /**
   * The categories a published ticket may take: the deployed tickets' set (`TICKET_CATEGORIES`),
   * for the knowledge form's choice; empty where the deployment knows none (any safe category).
   * Editors only; absent from servers older than data-derived categories.
   */
  ticketCategories: z.array(z.string()).optional(),
  /**
   * The desks an editor may publish to — those they may retrieve (ADR 0029), `all` first: the
   * knowledge form's choice. Editors only; absent from servers older than desks (`all` only).
   */
  desks: z.array(z.string()).optional(),
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
