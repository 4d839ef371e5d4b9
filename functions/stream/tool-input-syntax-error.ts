/**
 * The tool input is not valid JSON. A state, not an exception: the parser reports it as an
 * `error` event and in its final result, and ignores the input that follows.
 *
 * @example
 * if (final.error) logger.warn('invalid tool input', { position: final.error.position });
 */
export class ToolInputSyntaxError extends Error {
  override readonly name = 'ToolInputSyntaxError';
  /** Offset in UTF-16 code units into the concatenated input where the input went wrong. */
  readonly position: number;

  constructor(reason: string, position: number) {
    super(`${reason} at position ${position}`);
    this.position = position;
  }
}
