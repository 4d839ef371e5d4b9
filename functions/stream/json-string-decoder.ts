import type { JsonTokenHandler } from './json-token-handler.js';
import { ScanStatus } from './scan-status.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LOWEST_PRINTABLE = 0x20;

/** Where the decoder is inside a string: plain text, just after `\`, or inside `\uXXXX`. */
const Mode = { text: 0, escape: 1, unicode: 2 } as const;
type Mode = (typeof Mode)[keyof typeof Mode];

/** The one-character escapes of RFC 8259 §7, indexed by the character after the backslash. */
const SIMPLE_ESCAPES: readonly (string | undefined)[] = (() => {
  const table: (string | undefined)[] = [];
  const pairs: [string, string][] = [
    ['"', '"'],
    ['\\', '\\'],
    ['/', '/'],
    ['b', '\b'],
    ['f', '\f'],
    ['n', '\n'],
    ['r', '\r'],
    ['t', '\t'],
  ];
  for (const [letter, decoded] of pairs) table[letter.charCodeAt(0)] = decoded;
  return table;
})();

function hexDigitValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20; // A-F → a-f
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/**
 * Decodes the body of one JSON string (after the opening quote) across any number of fragments.
 * Plain runs are sliced out of the fragment whole, so the cost per character is one comparison
 * loop iteration; keys are collected, values go to the handler chunk by chunk.
 */
export class JsonStringDecoder {
  status: ScanStatus = ScanStatus.open;
  /** Why the string is invalid, when `status` is `failed`. */
  reason = '';
  /** The decoded key, once a key string has ended. */
  key = '';
  /** Whether the current string is an object key (collected) or a value (streamed to the handler). */
  isKey = false;
  private mode: Mode = Mode.text;
  private hexValue = 0;
  private hexCount = 0;

  constructor(private readonly handler: JsonTokenHandler) {}

  begin(isKey: boolean): void {
    this.status = ScanStatus.open;
    this.mode = Mode.text;
    this.isKey = isKey;
    this.key = '';
  }

  /**
   * Reads `text` from `from` up to the closing quote or the end of the fragment.
   * @returns the index after the closing quote (`ended`), `text.length` (`open`), or the index
   * of the offending character (`failed`).
   */
  scan(text: string, from: number): number {
    const length = text.length;
    let index = from;
    while (index < length) {
      if (this.mode === Mode.text) {
        const start = index;
        let code = 0;
        let last = 0;
        while (index < length) {
          code = text.charCodeAt(index);
          if (code === QUOTE || code === BACKSLASH || code < LOWEST_PRINTABLE) break;
          last = code; // the handler needs the last unit (surrogate check): no second read
          index++;
        }
        // A fragment inside one string is passed on whole, without a slice.
        if (index > start) {
          this.emit(start === 0 && index === length ? text : text.slice(start, index), last);
        }
        if (index === length) return index;
        if (code === QUOTE) {
          this.status = ScanStatus.ended;
          return index + 1;
        }
        if (code === BACKSLASH) this.mode = Mode.escape;
        else return this.fail(index, 'unescaped control character in string');
      } else if (this.mode === Mode.escape) {
        const code = text.charCodeAt(index);
        if (code === 0x75 /* u */) {
          this.mode = Mode.unicode;
          this.hexValue = 0;
          this.hexCount = 0;
        } else {
          const decoded = SIMPLE_ESCAPES[code];
          if (decoded === undefined) return this.fail(index, 'invalid escape in string');
          this.emit(decoded, 0);
          this.mode = Mode.text;
        }
      } else {
        const digit = hexDigitValue(text.charCodeAt(index));
        if (digit < 0) return this.fail(index, 'invalid \\u escape in string');
        this.hexValue = this.hexValue * 16 + digit;
        if (++this.hexCount === 4) {
          this.emit(String.fromCharCode(this.hexValue), this.hexValue);
          this.mode = Mode.text;
        }
      }
      index++;
    }
    return index;
  }

  private emit(chunk: string, last: number): void {
    if (this.isKey) this.key += chunk;
    else this.handler.stringChunk(chunk, last);
  }

  private fail(index: number, reason: string): number {
    this.status = ScanStatus.failed;
    this.reason = reason;
    return index;
  }
}
