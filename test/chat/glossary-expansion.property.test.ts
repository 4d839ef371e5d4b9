import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IT_GLOSSARY } from '../../functions/chat/it-glossary.js';
import { glossaryExpansion } from '../../functions/chat/retrieval.js';
import { expansionByRegularExpressions } from './support/glossary-by-regular-expressions.js';

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
