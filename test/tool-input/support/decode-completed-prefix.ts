/**
 * Reference for "every decoded character is emitted with the fragment that completes it".
 * For the body of a JSON string literal (between the quotes), returns for every cut `k`
 * (0..body.length) how many UTF-16 units of decoded text are complete after `k` raw characters:
 * an unfinished escape counts nothing yet, and a trailing high surrogate is held back because its
 * low half may follow. O(body.length), so a property test can check every fragment.
 */
export function completedLengths(body: string): number[] {
  const lengths: number[] = [0];
  let decoded = 0;
  let lastWasHigh = false;
  let index = 0;
  const push = (unit: number, rawLength: number) => {
    for (let i = 1; i < rawLength; i++) lengths.push(decoded - (lastWasHigh ? 1 : 0));
    decoded++;
    lastWasHigh = unit >= 0xd800 && unit <= 0xdbff;
    lengths.push(decoded - (lastWasHigh ? 1 : 0));
  };
  while (index < body.length) {
    if (body.charAt(index) !== '\\') {
      push(body.charCodeAt(index), 1);
      index++;
    } else if (body.charAt(index + 1) === 'u') {
      push(Number.parseInt(body.slice(index + 2, index + 6), 16), 6);
      index += 6;
    } else {
      push(0, 2);
      index += 2;
    }
  }
  return lengths;
}
