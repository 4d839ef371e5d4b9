import { segmentContentWords } from '../ticket-index/tokenize-for-search.js';
import type { InquiryLanguage } from './detect-inquiry-language.js';
import type { OfflinePrompt } from './read-offline-prompt.js';
import { truncateText } from './truncate-text.js';

/** An inquiry with at most this many content words is "short" (e.g. 「ログインできない」, "VPN"). */
export const SHORT_INQUIRY_MAX_WORDS = 1;
const CONSIDERED_TICKETS = 4;
const MAX_TOPIC_OPTIONS = 3;

/**
 * Decides whether to ask back, and with which options: when the inquiry is short, the retrieved
 * tickets disagree (their top entries span two or more categories — or subjects, when tickets
 * carry no category) and no clarification was asked yet in this inquiry. The options are one per
 * topic, best ticket first, plus "something else".
 * @returns the options (3–4), or `undefined` to answer with results
 */
export function findClarificationOptions(
  prompt: OfflinePrompt,
  language: InquiryLanguage,
): string[] | undefined {
  if (prompt.answeredClarification) return undefined;
  const inquiry = prompt.inquiries.at(-1) ?? '';
  if (segmentContentWords(inquiry).length > SHORT_INQUIRY_MAX_WORDS) return undefined;

  const considered = prompt.tickets.slice(0, CONSIDERED_TICKETS);
  const useCategories = considered.some((ticket) => ticket.category);
  const topics = new Map<string, string>();
  for (const ticket of considered) {
    const topic = (useCategories ? ticket.category : ticket.subject) ?? '';
    if (topic !== '' && !topics.has(topic)) topics.set(topic, ticket.subject);
  }
  if (topics.size < 2) return undefined;

  const separator = language === 'ja' ? '：' : ': ';
  const options = [...topics]
    .slice(0, MAX_TOPIC_OPTIONS)
    .map(([topic, subject]) =>
      truncateText(useCategories ? `${topic}${separator}${subject}` : subject, 120),
    );
  return [...options, language === 'ja' ? '上記以外' : 'Something else'];
}
