/**
 * Receives the structure of a JSON text from {@link JsonTokenizer} in document order (SAX style).
 * Keys arrive whole; string values arrive as decoded chunks so that a consumer can stream them.
 * A chunk never holds half an escape, but a surrogate pair may still straddle two chunks
 * (`\uD83D` and `\uDE00` are two escapes), so streaming consumers hold a trailing high surrogate.
 */
export interface JsonTokenHandler {
  startObject(): void;
  endObject(): void;
  startArray(): void;
  endArray(): void;
  /** An object key, decoded; the next token is its value. */
  key(name: string): void;
  startString(): void;
  /**
   * Decoded text of the current string value; never empty. `lastCode` is its last UTF-16 code
   * unit, which the tokenizer has already read (0 after a one-character escape).
   */
  stringChunk(chunk: string, lastCode: number): void;
  endString(): void;
  /** A number, `true`, `false` or `null` that has been completely read. */
  primitive(value: number | boolean | null): void;
}
