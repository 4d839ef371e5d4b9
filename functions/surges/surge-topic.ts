import type { RetrievedTicket } from '../chat/ports.js';
import { isSecondaryTerm, keyTermsOf, topicOfInquiry } from '../insights/inquiry-topic.js';

/**
 * The topic a surge counts an inquiry under (ADR 0033), derived from the insights topic key
 * (`category|term`, ADR 0022).
 *
 * - An inquiry that names its subject — a system, a device, a product (the first key term is no
 *   symptom) — counts under that subject in any category: `*|outlook`. 「Outlookが起動しない」,
 *   「Outlookが開かない」 and 「Outlook 起動でエラー」 meet there, though the tickets each one
 *   retrieves best belong to different categories (mail, SSO, hardware: a surge is about what
 *   fails now, which yesterday's tickets do not know).
 * - An inquiry that names only a symptom (「起動しない」, "slow") counts under the symptom within the
 *   category its retrieved tickets agree on (`hardware|won't boot`): without it every "won't
 *   start" of any device would merge.
 * - An inquiry with no key term at all never counts: nothing says it is the same as another.
 *
 * A printer inquiry and an Outlook one never share a key: their subjects differ.
 */

/** How many of the best retrieved tickets vote on a symptom's category. */
export const CATEGORY_VOTERS = 3;

/** What a surge is counted under: the key, and the label staff see (the key term). */
export interface SurgeTopic {
  readonly topicKey: string;
  readonly label: string;
}

/**
 * @example
 * surgeTopicOf('Outlookが起動しない', retrieved); // { topicKey: '*|outlook', label: 'outlook' }
 */
export function surgeTopicOf(
  inquiryText: string,
  retrieved: readonly Pick<RetrievedTicket, 'category' | 'score'>[],
): SurgeTopic | undefined {
  const [term] = keyTermsOf(inquiryText);
  if (term === undefined) return undefined;
  if (!isSecondaryTerm(term)) return { topicKey: `*|${term}`, label: term };
  const { topicKey, category } = topicOfInquiry(inquiryText, agreedCategory(retrieved));
  return { topicKey, label: `${term} (${category})` };
}

/**
 * Whether the inquiry's topic waits for the retrieved tickets: only a symptom's does (its
 * category is theirs); a subject's, or an inquiry that never counts, is known from the text.
 */
export function topicNeedsTickets(inquiryText: string): boolean {
  const [term] = keyTermsOf(inquiryText);
  return term !== undefined && isSecondaryTerm(term);
}

/** The category with the highest summed score among the best tickets (ties: the better ticket). */
function agreedCategory(
  retrieved: readonly Pick<RetrievedTicket, 'category' | 'score'>[],
): string | undefined {
  const voters = [...retrieved].sort((a, b) => b.score - a.score).slice(0, CATEGORY_VOTERS);
  const weight = new Map<string, number>();
  for (const ticket of voters) {
    const category = ticket.category?.trim();
    if (category) weight.set(category, (weight.get(category) ?? 0) + ticket.score);
  }
  let agreed: string | undefined;
  for (const [category, sum] of weight) {
    if (agreed === undefined || sum > (weight.get(agreed) ?? 0)) agreed = category;
  }
  return agreed;
}
