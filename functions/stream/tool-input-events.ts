import type { z } from 'zod';
import type { ToolInputSyntaxError } from './tool-input-syntax-error.js';

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
