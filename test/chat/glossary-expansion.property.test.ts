import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IT_GLOSSARY } from '../../functions/chat/it-glossary.js';
import { glossaryExpansion } from '../../functions/chat/retrieval.js';

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
 * compiling 339 expressions cost each new process about 330 ms on its first inquiry; it must
 * find exactly the same entries.
 */
function expansionByRegularExpressions(text: string): string[] {
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

/** Glossary variants as staff might type them. */
const variants = [
  ...IT_GLOSSARY.flatMap((entry) => [...entry.en, ...entry.ja]),
  ...IT_GLOSSARY.flatMap((entry) => entry.en.map((word) => word.toUpperCase())),
];
/** What can stand around a variant: plural endings, letters, digits, marks, astral letters, lone surrogates. */
const borders = [
  ...['s', 'es', 'ed', 'ing', ' ', '  ', '-', "'", '.', ',', '\n', '1', '9', 'x', 'é', 'ß'],
  ...['Ａ', 'ｖｐｎ', 'ﾌﾟﾘﾝﾀｰ', 'が', 'の', '。', '😀', '𝐀', '\u{1d7d8}', '\ud800', '\udc00'],
];
const piece = fc.oneof(fc.constantFrom(...variants), fc.constantFrom(...borders));

describe('glossaryExpansion', () => {
  it('finds exactly the entries the per-variant regular expressions found', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(glossaryExpansion(text)).toEqual(expansionByRegularExpressions(text));
      }),
      { numRuns: 2_000 },
    );
  });

  it('agrees on free text too', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        expect(glossaryExpansion(text)).toEqual(expansionByRegularExpressions(text));
      }),
      { numRuns: 500 },
    );
  });
});
