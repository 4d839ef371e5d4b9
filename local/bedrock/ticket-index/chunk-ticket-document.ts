/** Documents up to this many characters stay one chunk (a ticket is usually short). */
export const MAX_CHUNK_CHARS = 1500;

/**
 * Splits a document into chunks the way a Knowledge Base's fixed-size chunking roughly does:
 * whole if short, otherwise greedy runs of paragraphs up to `MAX_CHUNK_CHARS`, hard-splitting a
 * paragraph that is longer on its own. No overlap: enough for keyword search.
 */
export function chunkTicketDocument(text: string, maxChars = MAX_CHUNK_CHARS): string[] {
  const trimmed = text.trim();
  if (trimmed.length <= maxChars) return [trimmed];
  const pieces = trimmed
    .split(/\n\s*\n/)
    .flatMap((paragraph) =>
      paragraph.length <= maxChars
        ? [paragraph]
        : Array.from({ length: Math.ceil(paragraph.length / maxChars) }, (_, index) =>
            paragraph.slice(index * maxChars, (index + 1) * maxChars),
          ),
    );
  const chunks: string[] = [];
  let current = '';
  for (const piece of pieces) {
    if (current !== '' && current.length + 2 + piece.length > maxChars) {
      chunks.push(current);
      current = piece;
    } else {
      current = current === '' ? piece : `${current}\n\n${piece}`;
    }
  }
  if (current !== '') chunks.push(current);
  return chunks;
}
