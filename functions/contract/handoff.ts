import * as z from 'zod';

/**
 * The hand-off summary (docs/adr/0024-hand-off-summary.md): what staff send second line or a
 * vendor when an inquiry goes on — symptom, environment, what was tried, what the requester was
 * told, open questions — drafted from one inquiry by a forced tool and streamed field by field.
 * The route's body, the streamed events' data and the plain text staff copy are declared here,
 * once, for the function, the web app and the offline responder.
 */

/** The forced tool whose input is the summary. */
export const HANDOFF_TOOL_NAME = 'submit_handoff_summary';

/** The summary's text fields, in the order staff read them. */
export const HANDOFF_TEXT_FIELDS = ['symptom', 'environment', 'told_requester'] as const;
export type HandoffTextField = (typeof HANDOFF_TEXT_FIELDS)[number];

/** The summary's list fields: one item per action tried, per open question. */
export const HANDOFF_LIST_FIELDS = ['tried', 'open_questions'] as const;
export type HandoffListField = (typeof HANDOFF_LIST_FIELDS)[number];

/** Every field, in the order of the tool schema, the form and the copied text. */
export const HANDOFF_FIELDS = [
  'symptom',
  'environment',
  'tried',
  'told_requester',
  'open_questions',
] as const;
export type HandoffField = (typeof HANDOFF_FIELDS)[number];

/** A longer item is cut: a step or a question is a line, not a page. */
export const MAX_HANDOFF_ITEM_LENGTH = 500;
/** At most this many items per list; a model that writes more has lost its way. */
export const MAX_HANDOFF_ITEMS = 20;
/** A longer text field is cut. */
export const MAX_HANDOFF_TEXT_LENGTH = 4000;

/** One item of `tried` or `open_questions` as the stream checks it when it closes. */
export const handoffItemSchema = z.string().trim().min(1).max(MAX_HANDOFF_ITEM_LENGTH);

/** The languages a summary is written in. */
export const handoffLanguageSchema = z.enum(['ja', 'en']);
export type HandoffLanguage = z.infer<typeof handoffLanguageSchema>;

/**
 * The body of `POST /api/conversations/{id}/inquiries/{inquiryId}/handoff`: optionally the
 * language to write in (the UI's); without it, the inquiry's own language. Unknown fields are
 * refused, so a misspelt `langauge` is a 400 rather than silently ignored.
 */
export const handoffRequestSchema = z.strictObject({ language: handoffLanguageSchema.optional() });
export type HandoffRequest = z.infer<typeof handoffRequestSchema>;

/**
 * How the inquiry stands when the summary is drafted, decided from its turns, not by the model:
 * `solved` (its last answer a complete `results` answer citing tickets), `no_results` (answered,
 * but no ticket cited), `clarification_open` (its last answer asks back), `answer_failed` (its
 * last answer failed, was stopped or broke off), `unanswered` (a question with no answer yet).
 */
export const handoffOutcomeSchema = z.enum([
  'solved',
  'no_results',
  'clarification_open',
  'answer_failed',
  'unanswered',
]);
export type HandoffOutcome = z.infer<typeof handoffOutcomeSchema>;

/** The whole summary, as the final `summary` event carries it and staff edit it. */
export const handoffSummarySchema = z.object({
  symptom: z.string(),
  environment: z.string(),
  tried: z.array(z.string()),
  told_requester: z.string(),
  open_questions: z.array(z.string()),
});
export type HandoffSummary = z.infer<typeof handoffSummarySchema>;

/**
 * The final `summary` event: the summary, its language and the inquiry's outcome; `complete`
 * false when the model stopped early (staff see what arrived and fill in the rest); its links
 * checked as every text's that goes on from the page.
 */
export const handoffSummaryEventSchema = handoffSummarySchema.extend({
  language: handoffLanguageSchema,
  outcome: handoffOutcomeSchema,
  complete: z.boolean(),
  /**
   * Links the summary's fields had outside the allow-list or with another scheme than `https:`
   * or `mailto:`, as written, each once (`functions/contract/links.ts`): replaced by a placeholder
   * in the fields, listed here so the panel shows them as the answer does. Absent when none.
   */
  unverified_links: z.array(z.string()).optional(),
});
export type HandoffSummaryEvent = z.infer<typeof handoffSummaryEventSchema>;

/** The events of the hand-off stream beside `meta`, `progress` and `error` (chat-events.ts). */
export const handoffEventSchemas = {
  /** Text of a text field as it arrives (append to the field). */
  summary_text: z.object({ field: z.enum(HANDOFF_TEXT_FIELDS), content: z.string() }),
  /** One item of a list field, once it is complete. */
  summary_item: z.object({
    field: z.enum(HANDOFF_LIST_FIELDS),
    index: z.number().int().min(0),
    text: z.string(),
  }),
  /** The whole summary, last. */
  summary: handoffSummaryEventSchema,
} as const;

/** The labels of the copied text, in the summary's language. */
export const HANDOFF_LABELS: Readonly<Record<HandoffLanguage, Record<HandoffField, string>>> = {
  en: {
    symptom: 'Symptom',
    environment: 'Environment',
    tried: 'What was tried',
    told_requester: 'What the requester was told',
    open_questions: 'Open questions',
  },
  ja: {
    symptom: '症状',
    environment: '環境',
    tried: '実施済みの対応',
    told_requester: '依頼者への案内内容',
    open_questions: '未解決の確認事項',
  },
};

/** The heading of the copied text. */
export const HANDOFF_TITLE: Readonly<Record<HandoffLanguage, string>> = {
  en: 'Hand-off summary',
  ja: 'エスカレーション用サマリー',
};

/**
 * The summary as plain text for a ticket tool or an e-mail: a heading, then each field under
 * its label (lists as `- ` lines), empty fields and items left out.
 *
 * @example
 * handoffSummaryText({ symptom: 'VPN drops', environment: '', tried: ['Restarted'], told_requester: '', open_questions: [] }, 'en');
 * // 'Hand-off summary\n\nSymptom:\nVPN drops\n\nWhat was tried:\n- Restarted\n'
 */
export function handoffSummaryText(summary: HandoffSummary, language: HandoffLanguage): string {
  const labels = HANDOFF_LABELS[language];
  const sections: string[] = [HANDOFF_TITLE[language]];
  for (const field of HANDOFF_FIELDS) {
    const value = summary[field];
    const body =
      typeof value === 'string'
        ? value.trim()
        : value
            .map((item) => item.trim())
            .filter((item) => item !== '')
            .map((item) => `- ${item}`)
            .join('\n');
    if (body !== '') sections.push(`${labels[field]}:\n${body}`);
  }
  return `${sections.join('\n\n')}\n`;
}
