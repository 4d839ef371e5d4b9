import * as z from 'zod';

/**
 * Surges and known issues (issue #53, ADR 0033): what a chat streams when many staff ask about
 * the same topic at once (`surge`) or a lead has published a known issue that matches the
 * inquiry (`known_issue`), the bodies of `/api/known-issues`, and the insights page's list of
 * active surges. Imported by the function and the web app.
 *
 * A surge never says who asked or what they wrote: a topic label (the inquiry's key terms) and
 * counts. Only a lead sees example inquiries, scrubbed of personal data, as gap examples are.
 */

/** The SSE `surge` event: before the answer's first token, on a topic that is surging now. */
export const surgeNoticeSchema = z.object({
  /** The topic as staff read it: its key terms (`outlook`, `vpn`), never an inquiry's text. */
  topic: z.string(),
  /** Distinct inquiries on the topic within the window, this one included. */
  inquiries: z.number().int().min(1),
  /** Distinct staff members who asked them, the current one included. */
  staff: z.number().int().min(1),
  /** When the window's first of them arrived (ISO). */
  since: z.string(),
});
export type SurgeNotice = z.infer<typeof surgeNoticeSchema>;

/**
 * The SSE `known_issue` event: an open known issue that matches the inquiry, written by a lead.
 * `workaround` and `link` come when the lead gave them.
 */
export const knownIssueNoticeSchema = z.object({
  id: z.string(),
  title: z.string(),
  /** What staff should tell requesters. */
  note: z.string(),
  /** The lead's display name (the token's `name` claim, else the user id). */
  author: z.string(),
  /** When it was published (ISO). */
  at: z.string(),
  workaround: z.string().optional(),
  link: z.string().optional(),
});
export type KnownIssueNotice = z.infer<typeof knownIssueNoticeSchema>;

/**
 * The notices an answer carried, stored with its assistant turn (`turns[].notices`) so a reload
 * or another device shows them as the stream did: the surge and known issues as they were when
 * the answer was written — a known issue may have been closed since. Counts only, never who
 * asked. Bounded (`ANSWER_NOTICE_LIMITS`, applied by `answerNoticesOf` in
 * `functions/surges/answer-notices.ts`) so the turn stays within DynamoDB's item size.
 */
export const answerNoticesSchema = z.object({
  surge: surgeNoticeSchema.optional(),
  knownIssues: z.array(knownIssueNoticeSchema).optional(),
});
export type AnswerNotices = z.infer<typeof answerNoticesSchema>;

export const KNOWN_ISSUE_LIMITS = {
  title: 120,
  note: 1000,
  workaround: 1000,
  link: 500,
  /** Words or topics it covers. */
  matches: 10,
  match: 40,
  /** The longest a known issue stays open, and how long one without `endsAt` does. */
  maxOpenMs: 7 * 24 * 60 * 60 * 1000,
} as const;

const trimmed = (field: string, max: number) =>
  z
    .string()
    .trim()
    .min(1, `${field}: must not be empty`)
    .max(max, `${field}: at most ${max} characters`);

/**
 * The body of `POST /api/known-issues` (leads only). `endsAt` absent: open until closed, at most
 * seven days. Links in any text must be within the deployment's allowed domains (checked by the
 * route, which knows them).
 */
export const knownIssueRequestSchema = z
  .object({
    title: trimmed('title', KNOWN_ISSUE_LIMITS.title),
    note: trimmed('note', KNOWN_ISSUE_LIMITS.note),
    matches: z
      .array(trimmed('matches', KNOWN_ISSUE_LIMITS.match))
      .min(1, 'matches: name at least one word or topic')
      .max(KNOWN_ISSUE_LIMITS.matches, `matches: at most ${KNOWN_ISSUE_LIMITS.matches}`),
    workaround: trimmed('workaround', KNOWN_ISSUE_LIMITS.workaround).optional(),
    link: trimmed('link', KNOWN_ISSUE_LIMITS.link).optional(),
    endsAt: z.iso
      .datetime({ offset: true, message: 'endsAt: must be an ISO date-time' })
      .optional(),
  })
  .strict();
export type KnownIssueRequest = z.infer<typeof knownIssueRequestSchema>;

/** One open known issue as `GET /api/known-issues` lists it. */
export const knownIssueSchema = knownIssueNoticeSchema.extend({
  matches: z.array(z.string()),
  endsAt: z.string(),
});
export type KnownIssue = z.infer<typeof knownIssueSchema>;

export const knownIssueListSchema = z.object({ knownIssues: z.array(knownIssueSchema) });

/** An active surge on the insights page (leads only). */
export const activeSurgeSchema = surgeNoticeSchema.extend({
  topicKey: z.string(),
  /** Inquiries per slice of the window, oldest first: the count over time. */
  slices: z.array(z.object({ at: z.string(), inquiries: z.number().int().min(0) })),
  /** A few of its inquiries, scrubbed of personal data (absent when examples are off). */
  examples: z.array(z.string()),
});
export type ActiveSurge = z.infer<typeof activeSurgeSchema>;
