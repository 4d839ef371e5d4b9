const maxTitleLength = 60;

/** The sidebar title of a new conversation: the first message on one line, about 60 characters. */
export function titleFromText(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  // Count code points, not UTF-16 units, so a surrogate pair (emoji) is never cut in half.
  const characters = Array.from(oneLine);
  if (characters.length === 0) return 'New conversation';
  if (characters.length <= maxTitleLength) return oneLine;
  return `${characters
    .slice(0, maxTitleLength - 1)
    .join('')
    .trimEnd()}…`;
}
