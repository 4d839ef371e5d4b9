import { JsonLiteralScanner } from './json-literal-scanner.js';
import { JsonNumberScanner } from './json-number-scanner.js';
import { JsonStringDecoder } from './json-string-decoder.js';
import type { JsonTokenHandler } from './json-token-handler.js';
import { ScanStatus } from './scan-status.js';
import { ToolInputSyntaxError } from './tool-input-syntax-error.js';

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
