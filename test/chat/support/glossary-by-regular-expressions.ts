import { IT_GLOSSARY } from '../../../functions/chat/it-glossary.js';

const normalize = (value: string) => value.normalize('NFKC').toLowerCase();
const wholeWordPatterns = new Map<string, RegExp>();
function wholeWord(word: string): RegExp {
  let pattern = wholeWordPatterns.get(word);
  if (!pattern) {
    const escaped = normalize(word).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?:e?s)?(?![\\p{L}\\p{N}])`, 'u');
    wholeWordPatterns.set(word, pattern);
  }
  return pattern;
}

/**
 * The glossary's matching rule as it was first written: one regular expression per English
 * variant, a substring test per Japanese one. The scan in `retrieval.ts` replaced it because
 * compiling 339 expressions cost each new process about 330 ms on its first inquiry. The
 * property test holds the scan to it (`glossary-expansion.property.test.ts`); `bench/chat`
 * measures both in fresh processes.
 */
export function expansionByRegularExpressions(text: string): string[] {
  const normalized = normalize(text);
  const added: string[] = [];
  const add = (word: string) => {
    if (!normalized.includes(normalize(word)) && !added.includes(word)) added.push(word);
  };
  for (const entry of IT_GLOSSARY) {
    if (entry.ja.some((word) => normalized.includes(normalize(word)))) add(entry.en[0] as string);
    if (entry.en.some((word) => wholeWord(word).test(normalized))) add(entry.ja[0] as string);
  }
  return added;
}
