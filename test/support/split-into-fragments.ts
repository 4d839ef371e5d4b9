/**
 * Cuts `whole` into consecutive fragments whose sizes cycle through `sizes` (a size below 1
 * counts as 1; the last fragment is what is left). Strings are cut in UTF-16 units, byte arrays
 * in bytes. The one fragmenter of the tests and benchmarks: model
 * fragments, SSE byte chunks, HTTP reads.
 *
 * @example
 * splitIntoFragments('abcdefg', [1, 2]); // ['a', 'bc', 'd', 'ef', 'g']
 * splitIntoFragments(JSON.stringify(answer), [7]); // 7-character tool-input fragments
 */
export function splitIntoFragments<T extends string | Uint8Array>(
  whole: T,
  sizes: readonly number[],
): T[] {
  const fragments: T[] = [];
  let index = 0;
  let turn = 0;
  while (index < whole.length) {
    const size = Math.max(1, sizes[turn++ % sizes.length] ?? 1);
    fragments.push(whole.slice(index, index + size) as T);
    index += size;
  }
  return fragments;
}
