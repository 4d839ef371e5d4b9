import { ScanStatus } from './scan-status.js';

/** States of the RFC 8259 §6 number grammar `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`. */
const N = {
  minus: 0,
  zero: 1,
  integer: 2,
  dot: 3,
  fraction: 4,
  exponentMark: 5,
  exponentSign: 6,
  exponent: 7,
} as const;
type NumberState = (typeof N)[keyof typeof N];

const END = -1;
const FAIL = -2;

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** One step of the grammar: the next state, `END` (the character is not part of the number) or `FAIL`. */
function step(state: NumberState, code: number): NumberState | typeof END | typeof FAIL {
  const digit = isDigit(code);
  const exponentMark = code === 0x65 || code === 0x45;
  switch (state) {
    case N.minus:
      return code === 0x30 ? N.zero : digit ? N.integer : FAIL;
    case N.zero:
      return code === 0x2e ? N.dot : exponentMark ? N.exponentMark : digit ? FAIL : END;
    case N.integer:
      return digit ? N.integer : code === 0x2e ? N.dot : exponentMark ? N.exponentMark : END;
    case N.dot:
      return digit ? N.fraction : FAIL;
    case N.fraction:
      return digit ? N.fraction : exponentMark ? N.exponentMark : END;
    case N.exponentMark:
      return code === 0x2b || code === 0x2d ? N.exponentSign : digit ? N.exponent : FAIL;
    case N.exponentSign:
      return digit ? N.exponent : FAIL;
    default:
      return digit ? N.exponent : END;
  }
}

/**
 * Reads one JSON number across fragments. A number has no closing delimiter: it ends at the first
 * character that cannot continue it, which the tokenizer then reads again as structure.
 */
export class JsonNumberScanner {
  status: ScanStatus = ScanStatus.open;
  reason = '';
  private state: NumberState = N.minus;
  private text = '';

  /** Starts a number at its first character (`-` or a digit), which the caller has checked. */
  begin(first: number): void {
    this.status = ScanStatus.open;
    this.state = first === 0x2d ? N.minus : first === 0x30 ? N.zero : N.integer;
    this.text = String.fromCharCode(first);
  }

  /** True when the characters read so far form a whole number (so end of input may end it). */
  get complete(): boolean {
    const state = this.state;
    return state === N.zero || state === N.integer || state === N.fraction || state === N.exponent;
  }

  get value(): number {
    return Number(this.text);
  }

  /** @returns the index of the first character after the number, `text.length`, or the offending index. */
  scan(text: string, from: number): number {
    let index = from;
    while (index < text.length) {
      const next = step(this.state, text.charCodeAt(index));
      if (next === END) break;
      if (next === FAIL) {
        this.status = ScanStatus.failed;
        this.reason = this.state === N.zero ? 'leading zero in number' : 'invalid number';
        return index;
      }
      this.state = next;
      index++;
    }
    this.text += text.slice(from, index);
    if (index < text.length) this.status = ScanStatus.ended;
    return index;
  }
}
