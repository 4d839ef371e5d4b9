/**
 * Collects the decoded text of one streamed string during a `write()` and hands it out as one
 * delta. It holds back a trailing high surrogate until the next fragment: the low half may still
 * come (raw, or as a second `\uXXXX` escape), and a delta must never split a surrogate pair.
 */
export class TextDeltaBuffer {
  /** All text handed out so far, for the final value. */
  emitted = '';
  private pending = '';
  /** Last code unit appended (from the tokenizer, which read it anyway). */
  private lastCode = 0;

  reset(): void {
    this.emitted = '';
    this.pending = '';
    this.lastCode = 0;
  }

  append(chunk: string, lastCode: number): void {
    this.pending = this.pending === '' ? chunk : this.pending + chunk;
    this.lastCode = lastCode;
  }

  /**
   * Takes the pending text ('' when there is none). `final` is true when the string has closed,
   * so nothing can follow a trailing high surrogate and it is handed out as it is (lone).
   */
  take(final: boolean): string {
    let delta = this.pending;
    if (delta === '') return '';
    this.pending = '';
    const last = this.lastCode;
    if (!final && last >= 0xd800 && last <= 0xdbff) {
      this.pending = delta.slice(-1);
      delta = delta.slice(0, -1);
    }
    this.emitted += delta;
    return delta;
  }
}
