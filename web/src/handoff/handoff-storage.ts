import * as z from 'zod';
import {
  handoffLanguageSchema,
  handoffOutcomeSchema,
} from '../../../functions/contract/handoff.js';
import type { HandoffFields } from './handoff-summary-reducer.js';

/**
 * Where the edited hand-off summary is kept (ADR 0024): the tab's `sessionStorage`, one entry per
 * conversation and inquiry, so a reload finds the summary as staff left it, and closing the tab
 * forgets it — the summary is a copy-out text, not a record of the conversation.
 */

const keptSummarySchema = z.object({
  fields: z.object({
    symptom: z.string(),
    environment: z.string(),
    tried: z.string(),
    told_requester: z.string(),
    open_questions: z.string(),
  }),
  language: handoffLanguageSchema,
  outcome: handoffOutcomeSchema.optional(),
  /** The links removed from the summary, listed again after a reload. */
  unverifiedLinks: z.array(z.string()).readonly().optional(),
});
export type KeptHandoffSummary = z.infer<typeof keptSummarySchema>;

const keyOf = (conversationId: string, inquiryId: string) =>
  `handoff-summary:${conversationId}:${inquiryId}`;

/** The summary kept for an inquiry, if any (an unreadable entry counts as none). */
export function loadKeptHandoffSummary(
  conversationId: string,
  inquiryId: string,
  storage: Pick<Storage, 'getItem'> | undefined = globalThis.sessionStorage,
): KeptHandoffSummary | undefined {
  try {
    const text = storage?.getItem(keyOf(conversationId, inquiryId));
    if (!text) return undefined;
    const parsed = keptSummarySchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined; // storage blocked, or an entry that is not JSON
  }
}

/** Keeps the summary as staff left it; a storage that refuses (full, blocked) keeps nothing. */
export function keepHandoffSummary(
  conversationId: string,
  inquiryId: string,
  kept: { readonly fields: HandoffFields } & Omit<KeptHandoffSummary, 'fields'>,
  storage: Pick<Storage, 'setItem'> | undefined = globalThis.sessionStorage,
): void {
  try {
    storage?.setItem(keyOf(conversationId, inquiryId), JSON.stringify(kept));
  } catch {
    // Not kept: the panel still works, a reload only asks for a new summary.
  }
}
