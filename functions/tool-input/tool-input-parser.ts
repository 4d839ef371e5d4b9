import type { z } from 'zod';
import {
  type JsonTokenHandler,
  JsonTokenizer,
  type ToolInputSyntaxError,
} from './json-tokenizer.js';
import { JsonValueBuilder, setOwnProperty } from './json-value-builder.js';

// The error type is created by the tokenizer; callers import the parser's whole API from here.
export { ToolInputSyntaxError } from './json-tokenizer.js';

/** Element schemas of the streamed array fields, by field name. */
export type ElementSchemas = Readonly<Record<string, z.ZodType>>;

/** Which top-level fields of the tool input stream, and how. */
export interface ToolInputParserOptions<T extends string, A extends ElementSchemas> {
  /**
   * Top-level string fields whose text is emitted as `text` deltas while it arrives. A key that
   * appears twice streams twice, while the value keeps the last one, as `JSON.parse` does.
   */
  readonly textFields: readonly T[];
  /** Top-level array fields whose elements are emitted, validated, as soon as each one closes. */
  readonly arrayFields: A;
}

/** Decoded text of a streamed field: whole characters only, at most one per field per fragment. */
export interface ToolInputTextEvent<T extends string = string> {
  type: 'text';
  field: T;
  delta: string;
}

/** A closed element of a streamed array that passed its schema; `value` is the schema's output. */
export type ToolInputElementEvent<A extends ElementSchemas = ElementSchemas> = {
  [F in keyof A & string]: { type: 'element'; field: F; index: number; value: z.output<A[F]> };
}[keyof A & string];

/** A closed element that failed its schema. It is skipped; the stream goes on. */
export interface ToolInputInvalidElementEvent<A extends ElementSchemas = ElementSchemas> {
  type: 'invalid_element';
  field: keyof A & string;
  /** Position in the array as written, counting invalid elements too. */
  index: number;
  value: unknown;
  issues: readonly z.core.$ZodIssue[];
}

/** The input is not valid JSON; reported once, after which input is ignored. */
export interface ToolInputErrorEvent {
  type: 'error';
  error: ToolInputSyntaxError;
}

/** Everything `write()` can report. */
export type ToolInputEvent<T extends string = string, A extends ElementSchemas = ElementSchemas> =
  | ToolInputTextEvent<T>
  | ToolInputElementEvent<A>
  | ToolInputInvalidElementEvent<A>
  | ToolInputErrorEvent;

/**
 * What `end()` returns. Complete input: the parsed value, as `JSON.parse` would give it.
 * Truncated or invalid input: the top-level object with its completed fields, the streamed text
 * so far and the completed elements of streamed arrays; unfinished other fields are left out.
 */
export interface ToolInputResult {
  value: unknown;
  /** The input ended before the JSON value was closed (e.g. the model hit `max_tokens`). */
  truncated: boolean;
  error?: ToolInputSyntaxError;
}

/** Incremental parser of one tool input; see {@link createToolInputParser}. */
export interface ToolInputParser<T extends string, A extends ElementSchemas> {
  /** Feeds the next fragment; returns what it completed. Never throws; ignores input after an error. */
  write(fragment: string): ToolInputEvent<T, A>[];
  /** Ends the input and returns the value; idempotent. Never throws. */
  end(): ToolInputResult;
}

/**
 * Parses a tool input that arrives as JSON fragments of any size, in one pass. Configured
 * top-level string fields stream as text deltas; configured top-level arrays emit each element,
 * validated, when it closes. Only members of the top-level object stream: the same key nested
 * deeper is ordinary data. The final value is built along the way, never re-parsed.
 *
 * @example
 * const parser = createToolInputParser({
 *   textFields: ['general_advice', 'mail_draft'],
 *   arrayFields: { results: ticketResultSchema, todo_actions: todoActionSchema },
 * });
 * for (const fragment of fragments) for (const event of parser.write(fragment)) send(event);
 * const { value, truncated, error } = parser.end();
 */
export function createToolInputParser<const T extends string, const A extends ElementSchemas>(
  options: ToolInputParserOptions<T, A>,
): ToolInputParser<T, A> {
  return new StreamingToolInputParser<T, A>(options);
}

class StreamingToolInputParser<T extends string, A extends ElementSchemas>
  implements ToolInputParser<T, A>, JsonTokenHandler
{
  private readonly builder = new JsonValueBuilder();
  private readonly tokenizer = new JsonTokenizer(this);
  private readonly text = new TextDeltaBuffer();
  private readonly textFields: ReadonlySet<string>;
  private readonly arrayFields: A;
  private textField: T | undefined;
  private arrayField: (keyof A & string) | undefined;
  private arrayIndex = 0;
  private events: ToolInputEvent<T, A>[] | undefined;
  private result: ToolInputResult | undefined;

  constructor(options: ToolInputParserOptions<T, A>) {
    this.textFields = new Set(options.textFields);
    this.arrayFields = options.arrayFields;
  }

  write(fragment: string): ToolInputEvent<T, A>[] {
    if (this.result !== undefined || this.tokenizer.error !== undefined) return [];
    this.events = undefined;
    this.tokenizer.write(fragment);
    this.flushText(false);
    const error = this.tokenizer.error;
    if (error !== undefined) this.emit({ type: 'error', error });
    return this.events ?? [];
  }

  end(): ToolInputResult {
    if (this.result !== undefined) return this.result;
    const status = this.tokenizer.end();
    const error = this.tokenizer.error;
    this.result =
      status === 'complete'
        ? { value: this.builder.root, truncated: false }
        : error !== undefined
          ? { value: this.partialValue(), truncated: false, error }
          : { value: this.partialValue(), truncated: true };
    return this.result;
  }

  startObject(): void {
    this.builder.startObject();
  }

  startArray(): void {
    const key = this.builder.currentKey;
    if (this.isTopLevelMember() && Object.hasOwn(this.arrayFields, key)) {
      this.arrayField = key;
      this.arrayIndex = 0;
    }
    this.builder.startArray();
  }

  endObject(): void {
    this.builder.endContainer();
    this.valueDone();
  }

  endArray(): void {
    this.builder.endContainer();
    this.valueDone();
  }

  key(name: string): void {
    this.builder.key(name);
  }

  startString(): void {
    const key = this.builder.currentKey;
    if (this.isTopLevelMember() && this.textFields.has(key)) {
      this.textField = key as T;
      this.text.reset();
    } else {
      this.builder.startString();
    }
  }

  stringChunk(chunk: string, lastCode: number): void {
    if (this.textField === undefined) this.builder.stringChunk(chunk);
    else this.text.append(chunk, lastCode);
  }

  endString(): void {
    if (this.textField === undefined) this.builder.endString();
    else {
      this.flushText(true);
      this.builder.attach(this.text.emitted);
      this.textField = undefined;
    }
    this.valueDone();
  }

  primitive(value: number | boolean | null): void {
    this.builder.attach(value);
    this.valueDone();
  }

  /** True when the value about to start is a member of the top-level object. */
  private isTopLevelMember(): boolean {
    return this.builder.depth === 1 && !Array.isArray(this.builder.containerAt(0));
  }

  private valueDone(): void {
    const field = this.arrayField;
    if (field === undefined) return;
    const depth = this.builder.depth;
    if (depth === 1) this.arrayField = undefined; // the array itself closed
    if (depth !== 2) return;
    const array = this.builder.containerAt(1) as unknown[];
    const index = this.arrayIndex++;
    const schema = this.arrayFields[field] as z.ZodType;
    const event = validateElement(schema, field, index, array[array.length - 1]);
    this.emit(event as ToolInputEvent<T, A>);
  }

  /** Events of the current write; most writes have one, so the array is made for it exactly. */
  private emit(event: ToolInputEvent<T, A>): void {
    if (this.events === undefined) this.events = [event];
    else this.events.push(event);
  }

  private flushText(final: boolean): void {
    const field = this.textField;
    if (field === undefined) return;
    const delta = this.text.take(final);
    if (delta !== '') this.emit({ type: 'text', field, delta });
  }

  /** The top-level object as far as it is trustworthy; see {@link ToolInputResult}. */
  private partialValue(): unknown {
    const builder = this.builder;
    const root = builder.depth === 0 ? builder.root : builder.containerAt(0);
    if (builder.depth === 0 || Array.isArray(root)) return root;
    const object = root as Record<string, unknown>;
    if (this.textField !== undefined) setOwnProperty(object, this.textField, this.text.emitted);
    if (this.arrayField !== undefined)
      setOwnProperty(object, this.arrayField, builder.containerAt(1));
    return object;
  }
}

/**
 * Collects the decoded text of one streamed string during a `write()` and hands it out as one
 * delta. It holds back a trailing high surrogate until the next fragment: the low half may still
 * come (raw, or as a second `\uXXXX` escape), and a delta must never split a surrogate pair.
 */
class TextDeltaBuffer {
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

/**
 * Checks one closed array element against its schema and says what to emit. A schema that throws
 * (a buggy refinement) counts as an invalid element: the parser must never throw.
 */
function validateElement(
  schema: z.ZodType,
  field: string,
  index: number,
  value: unknown,
): ToolInputElementEvent | ToolInputInvalidElementEvent {
  let outcome: ReturnType<z.ZodType['safeParse']>;
  try {
    outcome = schema.safeParse(value);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const issue = { code: 'custom', message, path: [], input: value } as z.core.$ZodIssue;
    return { type: 'invalid_element', field, index, value, issues: [issue] };
  }
  if (outcome.success) return { type: 'element', field, index, value: outcome.data };
  return { type: 'invalid_element', field, index, value, issues: outcome.error.issues };
}
