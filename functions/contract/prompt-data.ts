/**
 * The names of the data elements in the model prompts (ADR 0015), written with the markup of
 * `prompt-markup.ts`: the contract between the product, which writes them, and a reader of the
 * request that is not a language model — the local offline responder — which reads them. The
 * system prompts say the same in words for the model, so rewording a prompt changes nothing the
 * responder does; renaming an element here changes both sides at once.
 */

/**
 * In every prompt, beside its feature's own elements: the language the answer is written in, `ja`
 * or `en` as the element's text.
 */
export const ANSWER_LANGUAGE_ELEMENT = 'answer_language';

/**
 * Chat: the elements of a user message and the attributes of a ticket
 * (`functions/chat/prompt-text.ts` writes them; the offline responder's `read-offline-prompt.ts`
 * reads them).
 */
export const PROMPT_ELEMENTS = {
  /** The retrieved tickets: `ticket` elements, or the note that none were found. */
  knowledgeBase: 'knowledge_base',
  ticket: 'ticket',
  /** The archive: `earlier_inquiry` elements, oldest first, after an omitted-count note. */
  archive: 'earlier_inquiries',
  archiveEntry: 'earlier_inquiry',
  archiveQuestion: 'question',
  archiveFollowUps: 'follow_ups',
  archiveAnswer: 'answer',
  /** What staff wrote: the whole of each earlier user message, the end of the last one. */
  inquiry: 'inquiry',
  /** A text file attached to the inquiry (ADR 0030), its name an attribute. */
  attachedFile: 'attached_file',
  /** What the vision step read from the inquiry's screenshots (ADR 0030). */
  screenshotReading: 'screenshot_reading',
  /**
   * An open known issue a lead published (ADR 0033), above the tickets: `id`, `author` and
   * `published_at` attributes; `title`, `note` and optional `workaround` and `link` children.
   */
  knownIssue: 'known_issue',
} as const;

/** The children of a `known_issue` element. */
export const KNOWN_ISSUE_ELEMENTS = {
  title: 'title',
  note: 'note',
  workaround: 'workaround',
  link: 'link',
} as const;

export const TICKET_ATTRIBUTES = {
  issueId: 'issue_id',
  subject: 'subject',
  category: 'category',
  score: 'score',
} as const;

/**
 * Mail-draft refinement: the elements of the refine message
 * (`functions/mail-draft/refine-mail-draft.ts`; read by the offline `offline-mail-draft.ts`).
 */
export const REFINE_ELEMENTS = {
  /** A `style` attribute, no text (the language to write in is the `answer_language` element). */
  refinement: 'refinement',
  inquiry: 'inquiry',
  staff: 'staff',
  draft: 'mail_draft',
  citedTickets: 'cited_tickets',
  /** One cited ticket: `issue_id` attribute; `subject` and `resolution` children. */
  citedTicket: 'cited_ticket',
  subject: 'subject',
  resolution: 'resolution',
} as const;

/**
 * Hand-off summary: the elements of the transcript message
 * (`functions/handoff/handoff-summary.ts`; read by the offline `offline-handoff-summary.ts`).
 */
export const HANDOFF_ELEMENTS = {
  /** How the inquiry stands: a `value` attribute, one of `HandoffOutcome`. */
  outcome: 'inquiry_outcome',
  staff: 'staff',
  /** An answer: `kind` (answer, clarification) and `status` attributes. */
  assistant: 'assistant',
  /** What the requester was told: the last answer's e-mail draft. */
  toldRequester: 'told_requester',
  citedTickets: 'cited_tickets',
  /** One cited ticket: `issue_id` and `subject` attributes, its resolution steps as text. */
  citedTicket: 'cited_ticket',
} as const;

/**
 * Knowledge draft: the elements of the transcript message
 * (`functions/knowledge/ticket-draft.ts`; read by the offline `offline-ticket-draft.ts`).
 */
export const TRANSCRIPT_ELEMENTS = {
  staff: 'staff',
  assistant: 'assistant',
  citedTickets: 'cited_tickets',
  /** One cited ticket: `issue_id` and `category` attributes, the subject as text. */
  citedTicket: 'cited_ticket',
} as const;
