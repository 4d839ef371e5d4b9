import type * as z from 'zod';
import {
  findUnverifiedTicketLinks,
  ticketDraftSchemaFor,
} from '../../../functions/contract/knowledge.js';
import { USER_TEXT_ERROR_CODES } from '../../../functions/contract/user-text.js';
import type { TicketDraftFields } from './ticket-draft-reducer.js';

/**
 * The publish form's check, with the same zod fields `POST /api/knowledge` validates with, so
 * the form refuses exactly what the server would — and says so beside the field, in the staff
 * member's language, instead of as the server's English sentence.
 */

/** What is wrong with one field; the form translates it. */
export type DraftProblem =
  | 'empty'
  | 'invalidText'
  | 'tooLong'
  | 'notOneLine'
  | 'noCategory'
  | 'noSteps'
  | 'tooManySteps';

/** Problems by field; `steps` by resolution step index. Empty when the draft can be sent. */
export interface DraftProblems {
  readonly subject?: DraftProblem;
  readonly category?: DraftProblem;
  readonly inquiry?: DraftProblem;
  /** The list as a whole (no step, too many). */
  readonly resolution?: DraftProblem;
  readonly steps?: Readonly<Record<number, DraftProblem>>;
}

/** The draft as `POST /api/knowledge` takes it (trimmed as the server trims it). */
export type ValidTicketDraft = z.output<ReturnType<typeof ticketDraftSchemaFor>>;

export type TicketDraftCheck =
  | { readonly ok: true; readonly ticket: ValidTicketDraft }
  | { readonly ok: false; readonly problems: DraftProblems };

/**
 * @param ticketCategories the deployed tickets' categories from `GET /api/me` (the server checks
 *   the same set); empty or absent: any safe category, as the server then accepts
 */
export function validateTicketDraft(
  fields: TicketDraftFields,
  ticketCategories: readonly string[] = [],
): TicketDraftCheck {
  const outcome = ticketDraftSchemaFor(ticketCategories).safeParse(fields);
  if (outcome.success) return { ok: true, ticket: outcome.data };
  const problems: {
    -readonly [K in keyof DraftProblems]: DraftProblems[K];
  } & { steps: Record<number, DraftProblem> } = { steps: {} };
  for (const issue of outcome.error.issues) {
    const [field, index] = issue.path;
    // Whatever is wrong with the category (none chosen, not one of the set), the form says one thing.
    const problem = field === 'category' ? 'noCategory' : problemOf(issue);
    if (field === 'resolution' && typeof index === 'number') problems.steps[index] ??= problem;
    else if (field === 'resolution') problems.resolution ??= problem;
    else if (field === 'subject' || field === 'category' || field === 'inquiry') {
      problems[field] ??= problem;
    }
  }
  return { ok: false, problems };
}

function problemOf(issue: z.core.$ZodIssue): DraftProblem {
  switch (issue.code) {
    case 'too_big':
      return issue.origin === 'array' ? 'tooManySteps' : 'tooLong';
    case 'too_small':
      return issue.origin === 'array' ? 'noSteps' : 'empty';
    case 'invalid_value':
      return 'noCategory';
    case 'custom': {
      const code = (issue.params as { code?: string } | undefined)?.code;
      if (code === USER_TEXT_ERROR_CODES.invalidText) return 'invalidText';
      if (code === USER_TEXT_ERROR_CODES.emptyText) return 'empty';
      // The contract's only other refinement: a subject is one line.
      return 'notOneLine';
    }
    default:
      return 'empty';
  }
}

/** A field of the "Save as knowledge" form. */
export type DraftFormField = 'subject' | 'category' | 'inquiry' | 'resolution';
const DRAFT_FORM_FIELDS: ReadonlySet<string> = new Set<DraftFormField>([
  'subject',
  'category',
  'inquiry',
  'resolution',
]);

/**
 * The form field a refused `POST /api/knowledge` is about, from the error body's `field` (a
 * dotted path: `subject`, `resolution.2` for the third step). `undefined` when the refusal names
 * no field of the form (then its message is shown above the buttons).
 */
export function draftFormFieldOf(requestField: string | undefined): DraftFormField | undefined {
  const head = requestField?.split('.')[0];
  return head !== undefined && DRAFT_FORM_FIELDS.has(head) ? (head as DraftFormField) : undefined;
}

/**
 * The links the "Save as knowledge" form warns about before publishing: those in the subject,
 * the inquiry and the steps whose domain is not on the deployment's allow-list (which
 * `GET /api/me` gives editors). The same function as the server's `unverifiedLinks` in the 201,
 * so the warning lists exactly what the server will. A warning, not a refusal: answers citing
 * the ticket keep such links away from requesters anyway (docs/adr/0013-answer-links.md).
 *
 * @param allowedLinkDomains `undefined` when the server sent no list (older than the check):
 *   nothing can be judged, so nothing is listed — the 201 still says what the server found.
 */
export function findDraftLinkWarnings(
  fields: TicketDraftFields,
  allowedLinkDomains: readonly string[] | undefined,
): string[] {
  if (allowedLinkDomains === undefined) return [];
  return findUnverifiedTicketLinks(fields, allowedLinkDomains);
}

/** The server scrub's placeholders (functions/knowledge/personal-data-scrub.ts), both languages. */
const SCRUB_PLACEHOLDER =
  /\[(?:氏名|メール|電話|秘密|個人番号|カード番号|name|email|phone|secret|My Number|card number)\]/g;

/**
 * The personal-data placeholders the draft holds, each once in order of appearance: the form
 * tells the editor what they mean, so only what is not personal is restored (docs/adr/0019).
 */
export function findScrubPlaceholders(fields: TicketDraftFields): string[] {
  const text = [fields.subject, fields.inquiry, ...fields.resolution].join('\n');
  return [...new Set(text.match(SCRUB_PLACEHOLDER) ?? [])];
}
