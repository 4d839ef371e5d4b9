import type { z } from 'zod';
import type { JsonTokenHandler } from './json-token-handler.js';
import { JsonTokenizer } from './json-tokenizer.js';
import { JsonValueBuilder, setOwnProperty } from './json-value-builder.js';
import { TextDeltaBuffer } from './text-delta-buffer.js';
import type {
  ElementSchemas,
  ToolInputEvent,
  ToolInputParserOptions,
  ToolInputResult,
} from './tool-input-events.js';
import { validateElement } from './validate-element.js';

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
