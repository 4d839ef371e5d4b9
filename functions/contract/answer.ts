import * as z from 'zod';
import { canonicalIssueId } from './ticket-references.js';

/**
 * One similar past ticket, as the model cites it in `results`.
 * `issue_id` is the ticket number as the retrieved ticket's `issue_id` attribute writes it ("1234",
 * "INC0012345", "ITSD-123", "ZD#35436"; ADR 0020); grounding compares it with the retrieved tickets.
 */
export const ticketResultSchema = z.object({
  issue_id: z
    .string()
    .min(1)
    .max(40)
    .describe('The issue_id of a retrieved ticket, copied exactly'),
  subject: z.string().max(300).describe('Ticket subject'),
  summary: z.string().max(2000).describe('What the ticket was about, one or two sentences'),
  resolution: z.string().max(4000).describe('How it was resolved'),
});
export type TicketResult = z.infer<typeof ticketResultSchema>;

/**
 * A ticket card as a model may actually write it: the tool schema asks for the ticket's own
 * `issue_id`, but models drift toward the seed's own payload (`"issue_id": 12345`) or write
 * `#12345`, ` 12345 `, full-width digits, `inc0012345`. Each unambiguous form becomes the canonical id
 * ({@link canonicalIssueId}), so the output is a {@link TicketResult}; an ambiguous id fails
 * here and the card is dropped as malformed. Reading only: the tool schema stays strict, to
 * keep asking for the canonical form.
 */
export const modelTicketResultSchema = ticketResultSchema.extend({
  issue_id: z.union([z.string(), z.number()]).transform((value, context) => {
    const issueId = canonicalIssueId(value);
    if (issueId !== undefined) return issueId;
    context.addIssue({ code: 'custom', message: 'not one unambiguous ticket number' });
    return z.NEVER;
  }),
});

export const todoActionSchema = z.string().min(1).max(500);

/** At most this many ticket cards per answer; further citations are ignored. */
export const MAX_RESULTS = 10;

/**
 * The input of the forced tool `submit_response`. Field order matters for streaming
 * (advice first, so staff read while the rest is generated) but the parser never relies on it.
 */
export const answerSchema = z.object({
  response_type: z
    .enum(['clarification', 'results'])
    .describe('clarification when the inquiry is ambiguous, otherwise results'),
  general_advice: z
    .string()
    .describe('Markdown advice for the staff member, grounded in the tickets'),
  question: z.string().optional().describe('The clarification question (clarification only)'),
  options: z
    .array(z.string().min(1).max(200))
    .max(6)
    .optional()
    .describe('2-4 short options for the clarification question'),
  results: z
    .array(ticketResultSchema)
    .max(MAX_RESULTS)
    .optional()
    .describe('The most relevant retrieved tickets (results only)'),
  mail_draft: z
    .string()
    .optional()
    .describe('E-mail draft to the requester, about the current inquiry only'),
  todo_actions: z
    .array(todoActionSchema)
    .max(20)
    .optional()
    .describe('Concrete next steps for the current inquiry only'),
  reasoning: z.string().optional().describe('Short internal reasoning, not shown prominently'),
});
export type Answer = z.infer<typeof answerSchema>;

/**
 * The answer as staff get it: the model's answer plus what the server found when it checked it.
 * Sent in `result` and stored with the assistant turn, so a reload shows the same thing. Not part
 * of the tool schema (the model never writes these fields), and optional, so answers stored
 * before they existed still parse.
 */
export const deliveredAnswerSchema = answerSchema.extend({
  /**
   * How many Knowledge Base chunks were retrieved for this inquiry (restricted ones removed, one
   * per ticket): the length of the `kb_chunks` event.
   */
  source_chunks_count: z.number().int().min(0).optional(),
  /**
   * Ticket numbers cited in `general_advice` or `mail_draft` (as `findTicketReferences` finds
   * them) that are not among this inquiry's retrieved or fetched tickets: canonical ids, each
   * once, in order of appearance. The web app marks them as not verified. A ticket card cannot
   * hold one: an unverified card is dropped instead.
   */
  unverified_references: z.array(z.string()).optional(),
  /**
   * Links (URLs and mail addresses, as `findLinks` in `links.ts` finds them) in `general_advice`,
   * `mail_draft` or `todo_actions` that may not survive (`isAllowedLink`: a scheme other than
   * `https:` or `mailto:`, or a domain not on the deployment's `allowedLinkDomains`): as written,
   * each once, in order of appearance. They are already
   * replaced by a placeholder in the mail draft and the to-dos; the advice keeps them, and the web
   * app shows them as text marked unverified, never as links. Absent on answers stored before
   * links were checked: the web app then makes no link in their advice clickable.
   */
  unverified_links: z.array(z.string()).optional(),
});
export type DeliveredAnswer = z.infer<typeof deliveredAnswerSchema>;

export const ANSWER_TOOL_NAME = 'submit_response';
