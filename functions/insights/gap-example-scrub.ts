import type { Insights } from '../contract/insights.js';
import { loadPersonNameAnalyzer, peopleFromNames } from '../knowledge/person-name-analyzer.js';
import {
  languageOf,
  peopleNamedIn,
  type ScrubSettings,
  scrubPersonalData,
} from '../knowledge/personal-data-scrub.js';

/**
 * A lead's read of gap examples scrubs them once more, with the person-name analyzer: the
 * example was scrubbed when the chat finished with the same named-people list a knowledge draft of
 * the inquiry uses (record-insights.ts), but without the analyzer, which never loads on a chat.
 * Here — the lead's read, not a chat — it loads, so the names only it finds go too, as they do
 * from a draft of the same inquiry. A read without examples never loads it. ADR 0019.
 */
export async function scrubGapExamplesForLead<T extends Pick<Insights, 'gaps'>>(
  insights: T,
  settings: ScrubSettings,
): Promise<T> {
  if (!insights.gaps.some((gap) => gap.examples.length > 0)) return insights;
  const analyzer = await loadPersonNameAnalyzer();
  return {
    ...insights,
    gaps: insights.gaps.map((gap) => ({
      ...gap,
      examples: gap.examples.map((example) => ({
        ...example,
        text: scrubPersonalData(example.text, {
          ...settings,
          people: [
            ...peopleNamedIn(example.text),
            ...peopleFromNames(analyzer.names(example.text)),
          ],
          language: languageOf(example.text),
        }).text,
      })),
    })),
  };
}
