const OPENING = new Set(['「', '『', '（', '(', '【', '"']);
const CLOSING = new Set(['」', '』', '）', ')', '】']);

/**
 * Splits Japanese or English prose into sentences: after 。！？ and after . ! ? followed by a
 * space, but never inside 「…」, （…） and similar quotes (a quoted error message often
 * contains its own full stop).
 */
export function splitSentences(text: string): string[] {
  const flat = text.replace(/\s+/g, ' ').trim();
  const sentences: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < flat.length; index += 1) {
    const char = flat[index] as string;
    if (char === '"') depth = depth > 0 ? depth - 1 : depth + 1;
    else if (OPENING.has(char)) depth += 1;
    else if (CLOSING.has(char)) depth = Math.max(0, depth - 1);
    const ends =
      depth === 0 && ('。！？'.includes(char) || ('.!?'.includes(char) && flat[index + 1] === ' '));
    if (ends) {
      sentences.push(flat.slice(start, index + 1).trim());
      start = index + 1;
    }
  }
  const rest = flat.slice(start).trim();
  if (rest !== '') sentences.push(rest);
  return sentences;
}

/** Joins sentences back: no space after a Japanese full stop, one space otherwise. */
export function joinSentences(sentences: readonly string[]): string {
  return sentences.reduce(
    (joined, sentence) =>
      joined === '' || /[。！？]$/.test(joined) ? joined + sentence : `${joined} ${sentence}`,
    '',
  );
}
