import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { answerLikeScaled } from '../support/answer-arbitraries.js';
import { splitIntoFragments } from '../support/split-into-fragments.js';
import { completedLengths } from './support/decode-completed-prefix.js';
import { ARRAY_FIELDS, runParser, TEXT_FIELDS } from './support/run-tool-input-parser.js';
import { type Serialized, serializeJson } from './support/serialize-json.js';

/**
 * What a truncated answer may report after `cut` characters: completed members, the streamed
 * text so far, the closed elements of streamed arrays — and nothing unfinished.
 */
function partialsOf({ text, members }: Serialized): (cut: number) => Record<string, unknown> {
  const full = JSON.parse(text) as Record<string, unknown>;
  const lengths = new Map<string, number[]>();
  for (const [key, span] of members) {
    lengths.set(key, completedLengths(text.slice(span.valueStart + 1, span.valueEnd - 1)));
  }
  return (cut) => expectedPartial(full, members, lengths, cut);
}

function expectedPartial(
  full: Record<string, unknown>,
  members: Serialized['members'],
  lengths: Map<string, number[]>,
  cut: number,
): Record<string, unknown> {
  const partial: Record<string, unknown> = {};
  for (const [key, span] of members) {
    const value = full[key];
    const closesAt = typeof value === 'number' ? span.valueEnd + 1 : span.valueEnd;
    if (closesAt <= cut) partial[key] = value;
    else if (span.valueStart >= cut) continue;
    else if ((TEXT_FIELDS as readonly string[]).includes(key) && typeof value === 'string') {
      const length = lengths.get(key)?.[cut - span.valueStart - 1] ?? 0;
      partial[key] = value.slice(0, length);
    } else if (Object.hasOwn(ARRAY_FIELDS, key) && Array.isArray(value)) {
      const closed = span.elementEnds.filter((end, index) =>
        span.elementIsNumber[index] ? end < cut : end <= cut,
      );
      partial[key] = value.slice(0, closed.length);
    }
  }
  return partial;
}

// Typical fragment sizes only: with 1-char fragments every prefix costs a write per character.
const typicalSizes = fc.array(fc.integer({ min: 1, max: 24 }), { minLength: 1, maxLength: 8 });

describe('createToolInputParser on truncated input', () => {
  it('turns every prefix of an answer into a partial value marked truncated', () => {
    fc.assert(
      fc.property(answerLikeScaled(0.3), fc.integer(), typicalSizes, (answer, seed, sizes) => {
        const serialized = serializeJson(answer, seed, 0.1);
        const { text } = serialized;
        // The last character closes the top-level object, so every shorter cut is unfinished.
        const trimmed = text.trimEnd();
        const partialAt = partialsOf(serialized);
        const firstBrace = text.indexOf('{');
        for (let cut = 0; cut < trimmed.length; cut++) {
          const { result } = runParser(splitIntoFragments(text.slice(0, cut), sizes));
          if (result.truncated !== true || result.error !== undefined) {
            throw new Error(`cut ${cut}: ${JSON.stringify(result)}`);
          }
          const expected = cut <= firstBrace ? undefined : partialAt(cut);
          if (!isDeepStrictEqual(result.value, expected)) {
            expect(result.value, `cut ${cut}`).toEqual(expected);
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('survives deep nesting without recursion', () => {
    const depth = 100_000;
    const { result } = runParser(['{"general_advice":"ok","x":', '['.repeat(depth)]);
    expect(result).toEqual({ value: { general_advice: 'ok' }, truncated: true });
    const closed = runParser([`${'['.repeat(depth)}${']'.repeat(depth)}`]).result;
    expect(closed.truncated).toBe(false);
  });
});
