import { ScanStatus } from './scan-status.js';

const LITERALS: Record<number, readonly [word: string, value: boolean | null]> = {
  116: ['true', true],
  102: ['false', false],
  110: ['null', null],
};

/** Reads `true`, `false` or `null` across fragments (a model may cut `nu|ll`). */
export class JsonLiteralScanner {
  status: ScanStatus = ScanStatus.open;
  reason = '';
  value: boolean | null = null;
  private word = 'null';
  private matched = 0;

  /** Starts a literal at its first character; false when no literal starts with it. */
  begin(first: number): boolean {
    const literal = LITERALS[first];
    if (literal === undefined) return false;
    [this.word, this.value] = literal;
    this.matched = 1;
    this.status = ScanStatus.open;
    return true;
  }

  /** @returns the index after the literal (`ended`), `text.length` (`open`), or the offending index. */
  scan(text: string, from: number): number {
    const word = this.word;
    let index = from;
    while (index < text.length && this.matched < word.length) {
      if (text.charCodeAt(index) !== word.charCodeAt(this.matched)) {
        this.status = ScanStatus.failed;
        this.reason = `invalid literal (expected '${word}')`;
        return index;
      }
      index++;
      this.matched++;
    }
    if (this.matched === word.length) this.status = ScanStatus.ended;
    return index;
  }
}
