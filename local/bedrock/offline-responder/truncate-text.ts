/** Shortens text to at most `maxChars` characters, ending with an ellipsis when cut. */
export function truncateText(text: string, maxChars: number): string {
  const chars = Array.from(text.trim()); // by code point: never leave half a surrogate pair
  return chars.length <= maxChars ? chars.join('') : `${chars.slice(0, maxChars - 1).join('')}…`;
}
