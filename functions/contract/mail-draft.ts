import * as z from 'zod';
import { userTextSchema } from './user-text.js';

/**
 * The e-mail draft's versions and what staff did with it (ADR 0023): the answer's `mail_draft`
 * is version 1 and never changes; each edit and each refinement appends a version to the answer
 * turn (`turns[].mailDraftVersions`), and copying or opening it in the mail client is counted on
 * the turn (`mailDraftCopies`, `mailDraftMailOpens`) — counts, never text.
 */

/** The one-click refinements: shorter, more polite (敬語 / formal English), the other language, steps numbered. */
export const MAIL_DRAFT_STYLES = ['shorter', 'polite', 'other_language', 'numbered_steps'] as const;
export const mailDraftStyleSchema = z.enum(MAIL_DRAFT_STYLES);
export type MailDraftStyle = z.infer<typeof mailDraftStyleSchema>;

/** How a version was made: typed by staff (`edit`) or refined by the model in one of the styles. */
export const mailDraftOriginSchema = z.enum(['edit', ...MAIL_DRAFT_STYLES]);
export type MailDraftOrigin = z.infer<typeof mailDraftOriginSchema>;

/**
 * Versions an answer keeps beside its original. Bounded so a turn stays far below DynamoDB's
 * 400 KB item limit: ten versions of at most {@link MAX_MAIL_DRAFT_LENGTH} characters are at most
 * 120 KB of UTF-8 Japanese, beside the answer itself.
 */
export const MAX_MAIL_DRAFT_VERSIONS = 10;

/** Characters one version may have (an e-mail staff send, not a document). */
export const MAX_MAIL_DRAFT_LENGTH = 4000;

/**
 * One stored version after the original, as `turns[].mailDraftVersions[]` returns it. The text
 * has had the same checks as the answer's draft: links that may not survive (`isAllowedLink` in
 * `links.ts`) replaced by a placeholder (listed in `unverified_links`), ticket numbers not among the answer's cited tickets
 * listed in `unverified_references`.
 */
export const mailDraftVersionSchema = z.object({
  text: z.string().min(1).max(MAX_MAIL_DRAFT_LENGTH),
  origin: mailDraftOriginSchema,
  createdAt: z.string(),
  unverified_links: z.array(z.string()).optional(),
  unverified_references: z.array(z.string()).optional(),
});
export type MailDraftVersion = z.infer<typeof mailDraftVersionSchema>;

/**
 * Which version a refinement starts from: 1 is the answer's original, 2 the first stored
 * version, and so on. @default the latest
 */
const basedOnSchema = z
  .number()
  .int()
  .min(1)
  .max(MAX_MAIL_DRAFT_VERSIONS + 1)
  .optional();

/** Body of `PUT /api/conversations/{id}/turns/{seq}/mail-draft`: staff's edit, a new version. */
export const mailDraftEditRequestSchema = z
  .object({ text: userTextSchema('text', MAX_MAIL_DRAFT_LENGTH) })
  .strict();
export type MailDraftEditRequest = z.infer<typeof mailDraftEditRequestSchema>;

/** Body of `POST /api/conversations/{id}/turns/{seq}/mail-draft/refine`: streamed over SSE. */
export const mailDraftRefineRequestSchema = z
  .object({ style: mailDraftStyleSchema, basedOn: basedOnSchema })
  .strict();
export type MailDraftRefineRequest = z.infer<typeof mailDraftRefineRequestSchema>;

/** What staff did with a draft, as counted: copied it, or opened it in the mail client. */
export const mailDraftActionSchema = z.enum(['copy', 'open_in_mail']);
export type MailDraftAction = z.infer<typeof mailDraftActionSchema>;

/** Body of `POST /api/conversations/{id}/turns/{seq}/mail-draft/actions`. */
export const mailDraftActionRequestSchema = z
  .object({ action: mailDraftActionSchema, version: basedOnSchema })
  .strict();
export type MailDraftActionRequest = z.infer<typeof mailDraftActionRequestSchema>;

/**
 * Per answer, what staff did with its draft — the acceptance figures (counts only): edits and
 * refinements are the stored versions by origin, copies and opens in the mail client counters.
 */
export const mailDraftUsageSchema = z.object({
  copies: z.number().int().min(0),
  mailOpens: z.number().int().min(0),
  edits: z.number().int().min(0),
  refinements: z.number().int().min(0),
});
export type MailDraftUsage = z.infer<typeof mailDraftUsageSchema>;

/**
 * The answer of the edit and action routes and the data of the refine stream's
 * `mail_draft_version` event: the version stored (`number` as the ‹ › counter shows it, the
 * original being 1), the usage after it, and the conversation's new version (its ETag).
 */
export const storedMailDraftSchema = z.object({
  seq: z.number().int(),
  number: z.number().int().min(2).optional(),
  version: mailDraftVersionSchema.optional(),
  usage: mailDraftUsageSchema,
  conversationVersion: z.number().int(),
});
export type StoredMailDraft = z.infer<typeof storedMailDraftSchema>;

/**
 * The counts of one answer turn's draft (stored fields absent count 0).
 * @example
 * mailDraftUsageOf(turn); // { copies: 1, mailOpens: 0, edits: 1, refinements: 2 }
 */
export function mailDraftUsageOf(turn: {
  readonly mailDraftVersions?: readonly Pick<MailDraftVersion, 'origin'>[];
  readonly mailDraftCopies?: number;
  readonly mailDraftMailOpens?: number;
}): MailDraftUsage {
  const versions = turn.mailDraftVersions ?? [];
  const edits = versions.filter((version) => version.origin === 'edit').length;
  return {
    copies: turn.mailDraftCopies ?? 0,
    mailOpens: turn.mailDraftMailOpens ?? 0,
    edits,
    refinements: versions.length - edits,
  };
}

/** The refine tool's name: the model answers by calling it with `{ mail_draft }`. */
export const MAIL_DRAFT_TOOL_NAME = 'submit_mail_draft';
