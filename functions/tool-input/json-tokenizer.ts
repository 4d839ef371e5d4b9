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

/** What the tokenizer expects next. */
const S = {
  value: 0,
  valueOrArrayEnd: 1,
  keyOrObjectEnd: 2,
  key: 3,
  colon: 4,
  commaOrEnd: 5,
  done: 6,
  string: 7,
  number: 8,
  literal: 9,
  failed: 10,
} as const;
type State = (typeof S)[keyof typeof S];

const OBJECT = 0;
const ARRAY = 1;
/**
 * An incremental JSON (RFC 8259) tokenizer: one pass over each fragment, no look-behind, no
 * buffering beyond the token in progress, so the total cost is O(input). It checks the whole
 * grammar and reports structure to a {@link JsonTokenHandler}. Syntax errors are a state
 * (`error`), never thrown.
 */
export class JsonTokenizer {
  error: ToolInputSyntaxError | undefined;
  private state: State = S.value;
  private readonly containers: number[] = [];
  private readonly strings: JsonStringDecoder;
  private readonly numbers = new JsonNumberScanner();
  private readonly literals = new JsonLiteralScanner();
  /** Code units consumed by earlier fragments, for error positions. */
  private offset = 0;

  constructor(private readonly handler: JsonTokenHandler) {
    this.strings = new JsonStringDecoder(handler);
  }

  write(text: string): void {
    const length = text.length;
    let index = 0;
    while (index < length && this.state !== S.failed) {
      if (this.state === S.string) index = this.continueString(text, index);
      else if (this.state === S.number) index = this.continueNumber(text, index);
      else if (this.state === S.literal) index = this.continueLiteral(text, index);
      else {
        const code = text.charCodeAt(index);
        // JSON whitespace is exactly these four (RFC 8259 §2); NBSP or a BOM is an error.
        if (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) index++;
        else index = this.structural(code, index);
      }
    }
    this.offset += length;
  }

  /** Ends the input: `complete` when one whole JSON value was read, else `incomplete` or `failed`. */
  end(): 'complete' | 'incomplete' | 'failed' {
    if (this.state === S.number && this.containers.length === 0 && this.numbers.complete) {
      this.handler.primitive(this.numbers.value);
      this.state = S.done;
    }
    if (this.state === S.failed) return 'failed';
    return this.state === S.done ? 'complete' : 'incomplete';
  }

  private structural(code: number, index: number): number {
    switch (this.state) {
      case S.valueOrArrayEnd:
        if (code === 0x5d) return this.closeContainer(ARRAY, index);
        return this.startValue(code, index);
      case S.value:
        return this.startValue(code, index);
      case S.keyOrObjectEnd:
        if (code === 0x7d) return this.closeContainer(OBJECT, index);
        return this.startKey(code, index);
      case S.key:
        return this.startKey(code, index);
      case S.colon:
        if (code !== 0x3a) return this.fail(index, "expected ':' after key");
        this.state = S.value;
        return index + 1;
      case S.commaOrEnd: {
        const top = this.containers[this.containers.length - 1];
        if (code === 0x2c) this.state = top === OBJECT ? S.key : S.value;
        else if (code === 0x7d && top === OBJECT) return this.closeContainer(OBJECT, index);
        else if (code === 0x5d && top === ARRAY) return this.closeContainer(ARRAY, index);
        else
          return this.fail(index, top === OBJECT ? "expected ',' or '}'" : "expected ',' or ']'");
        return index + 1;
      }
      default:
        return this.fail(index, 'unexpected data after the JSON value');
    }
  }

  private startValue(code: number, index: number): number {
    if (code === 0x22) {
      this.handler.startString();
      this.strings.begin(false);
      this.state = S.string;
    } else if (code === 0x7b) {
      this.handler.startObject();
      this.containers.push(OBJECT);
      this.state = S.keyOrObjectEnd;
    } else if (code === 0x5b) {
      this.handler.startArray();
      this.containers.push(ARRAY);
      this.state = S.valueOrArrayEnd;
    } else if (code === 0x2d || (code >= 0x30 && code <= 0x39)) {
      this.numbers.begin(code);
      this.state = S.number;
    } else {
      if (!this.literals.begin(code)) return this.fail(index, 'expected a JSON value');
      this.state = S.literal;
    }
    return index + 1;
  }

  private startKey(code: number, index: number): number {
    if (code !== 0x22) return this.fail(index, 'expected a double-quoted key');
    this.strings.begin(true);
    this.state = S.string;
    return index + 1;
  }

  private continueString(text: string, from: number): number {
    const strings = this.strings;
    const index = strings.scan(text, from);
    if (strings.status === ScanStatus.open) return index;
    if (strings.status === ScanStatus.failed) return this.fail(index, strings.reason);
    if (strings.isKey) {
      this.handler.key(strings.key);
      this.state = S.colon;
    } else {
      this.handler.endString();
      this.valueDone();
    }
    return index;
  }

  private continueNumber(text: string, from: number): number {
    const index = this.numbers.scan(text, from);
    if (this.numbers.status === ScanStatus.failed) return this.fail(index, this.numbers.reason);
    if (this.numbers.status === ScanStatus.ended) {
      this.handler.primitive(this.numbers.value);
      this.valueDone();
    }
    return index;
  }

  private continueLiteral(text: string, from: number): number {
    const index = this.literals.scan(text, from);
    if (this.literals.status === ScanStatus.failed) return this.fail(index, this.literals.reason);
    if (this.literals.status === ScanStatus.ended) {
      this.handler.primitive(this.literals.value);
      this.valueDone();
    }
    return index;
  }

  private closeContainer(kind: number, index: number): number {
    this.containers.pop();
    if (kind === OBJECT) this.handler.endObject();
    else this.handler.endArray();
    this.valueDone();
    return index + 1;
  }

  private valueDone(): void {
    this.state = this.containers.length === 0 ? S.done : S.commaOrEnd;
  }

  private fail(index: number, reason: string): number {
    this.error = new ToolInputSyntaxError(reason, this.offset + index);
    this.state = S.failed;
    return index;
  }
}

// The tokenizer's sub-scanners: each carries one string, number or literal token across fragments.

/**
 * Outcome of feeding one fragment to a sub-scanner ({@link JsonStringDecoder},
 * {@link JsonNumberScanner}, {@link JsonLiteralScanner}): the token continues in the next
 * fragment, it ended, or it is invalid.
 */
const ScanStatus = {
  open: 0,
  ended: 1,
  failed: 2,
} as const;
type ScanStatus = (typeof ScanStatus)[keyof typeof ScanStatus];

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
class JsonStringDecoder {
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

/** One step of the number grammar: the next state, `END` (the character is not part of the number) or `FAIL`. */
function stepNumber(state: NumberState, code: number): NumberState | typeof END | typeof FAIL {
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
class JsonNumberScanner {
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
      const next = stepNumber(this.state, text.charCodeAt(index));
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

const LITERALS: Record<number, readonly [word: string, value: boolean | null]> = {
  116: ['true', true],
  102: ['false', false],
  110: ['null', null],
};

/** Reads `true`, `false` or `null` across fragments (a model may cut `nu|ll`). */
class JsonLiteralScanner {
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
