import type { SeededRandom } from './create-seeded-random.js';

export const MIN_FRAGMENT_CHARS = 1;
export const MAX_FRAGMENT_CHARS = 24;

/**
 * Cuts serialized tool input into 1–24 character fragments at arbitrary (seeded) positions.
 * Boundaries land anywhere: inside keys, inside strings, between a backslash and the escaped
 * character (made more likely on purpose, as that is where incremental parsers break), and,
 * since fragments are UTF-16 strings, possibly between the halves of a surrogate pair.
 */
export function splitIntoFragments(text: string, random: SeededRandom): string[] {
  const fragments: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(text.length, start + random.integer(MIN_FRAGMENT_CHARS, MAX_FRAGMENT_CHARS));
    // Next character opens an escape: half of the time, cut right after the backslash instead.
    const opensEscape = text[end] === '\\' && text[end - 1] !== '\\';
    if (opensEscape && end - start < MAX_FRAGMENT_CHARS && random.next() < 0.5) end += 1;
    fragments.push(text.slice(start, end));
    start = end;
  }
  return fragments;
}
