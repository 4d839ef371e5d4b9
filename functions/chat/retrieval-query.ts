import { type GlossaryEntry, IT_GLOSSARY } from './it-glossary.js';

/**
 * The text sent to the Knowledge Base's `Retrieve` for an inquiry. Built from the inquiry's own
 * user text only — never history, never assistant text — and deterministic: the same inquiry
 * always sends the same query (the `kb_query` event shows it to staff verbatim).
 */

/** Bedrock's Retrieve accepts at most 1,000 characters of query text. */
export const MAX_QUERY_LENGTH = 1000;

export interface RetrievalQueryOptions {
  /**
   * Append the other language's words for the glossary entries the text mentions
   * (`it-glossary.ts`), so a question in one language finds tickets written in the other.
   */
  readonly expand?: boolean;
}

export function toRetrievalQuery(inquiryText: string, options: RetrievalQueryOptions = {}): string {
  const text = inquiryText.trim();
  const expansion = options.expand ? glossaryExpansion(text) : [];
  // The inquiry first and whole: the expansion is what gets cut at the limit.
  const query = expansion.length > 0 ? `${text}\n${expansion.join(' ')}` : text;
  return Array.from(query).slice(0, MAX_QUERY_LENGTH).join('').trim();
}

/**
 * The words to add for the glossary entries a text mentions: for an entry found by a Japanese
 * variant, its first English word, and the reverse; words the text already contains are skipped.
 * Order follows the glossary, so the result does not depend on where in the text a term stood.
 */
export function glossaryExpansion(text: string): string[] {
  const normalized = normalize(text);
  const added: string[] = [];
  const add = (word: string) => {
    if (!normalized.includes(normalize(word)) && !added.includes(word)) added.push(word);
  };
  for (const entry of IT_GLOSSARY) {
    const { japanese, english } = mentions(entry, normalized);
    if (japanese) add(entry.en[0] as string);
    if (english) add(entry.ja[0] as string);
  }
  return added;
}

function mentions(entry: GlossaryEntry, normalized: string) {
  return {
    japanese: entry.ja.some((word) => normalized.includes(normalize(word))),
    english: entry.en.some((word) => englishWord(word).test(normalized)),
  };
}

// Full-width letters and half-width katakana as staff type them (ＶＰＮ, ﾌﾟﾘﾝﾀｰ) match too.
const normalize = (text: string) => text.normalize('NFKC').toLowerCase();

const englishPatterns = new Map<string, RegExp>();
/**
 * A whole-word, case-insensitive match of an English glossary word (on normalised text), plural
 * included: "licenses" mentions "license", "calls" mentions "call".
 */
function englishWord(word: string): RegExp {
  let pattern = englishPatterns.get(word);
  if (!pattern) {
    const escaped = normalize(word).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?:e?s)?(?![\\p{L}\\p{N}])`, 'u');
    englishPatterns.set(word, pattern);
  }
  return pattern;
}
