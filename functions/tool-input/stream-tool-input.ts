import {
  createToolInputParser,
  type ElementSchemas,
  type ToolInputEvent,
  type ToolInputParserOptions,
  type ToolInputResult,
} from './tool-input-parser.js';

/**
 * The events of a forced-tool model stream as far as the parser cares: the tool input's JSON
 * fragments, why the model stopped, and its token report. Structural, so this folder needs
 * nothing of the chat core (folders point `chat → tool-input`); the core's `ChatModelEvent` is
 * one of these.
 */
export type ToolCallStreamEvent =
  | { readonly type: 'tool_input'; readonly fragment: string }
  | { readonly type: 'stop'; readonly reason: string }
  | { readonly type: 'usage' };

/** What one tool call's stream came to, once it ended whichever way. */
export interface ToolInputStreamOutcome<E extends ToolCallStreamEvent> {
  /** The parser's final value (`end()`): complete, truncated or cut at a syntax error. */
  readonly final: ToolInputResult;
  /** Tool-input fragments read; 0 means the model never called the tool. */
  readonly fragments: number;
  /** The last `stop` event's reason; absent when the stream ended without one (it was cut off). */
  readonly stopReason?: Extract<E, { type: 'stop' }>['reason'];
  /** The model's token report, without its `type`; absent when none arrived. */
  readonly usage?: Omit<Extract<E, { type: 'usage' }>, 'type'>;
  /** The parser reported invalid JSON while the stream ran; reading stopped there. */
  readonly malformed: boolean;
  /** The stream threw, and not because `signal` aborted it. */
  readonly streamError?: { readonly error: unknown };
  /** `signal` ended the stream (it was aborted while reading, or the stream threw after it was). */
  readonly aborted: boolean;
}

/** Options of {@link streamToolInput}. */
export interface StreamToolInputOptions<
  E extends ToolCallStreamEvent,
  T extends string,
  A extends ElementSchemas,
> {
  /** The model's stream of one forced tool call. */
  readonly events: AsyncIterable<E>;
  /** Which fields stream as text and which arrays element by element. */
  readonly parser: ToolInputParserOptions<T, A>;
  /** Stops reading (a stop request, the time budget); the stream should be given it too. */
  readonly signal: AbortSignal;
  /** Each parser event, in order, the moment its fragment was read. */
  readonly onEvent: (event: ToolInputEvent<T, A>) => void;
}

/**
 * Feeds a model's tool-call stream through the incremental parser: every fragment is written to
 * the parser and each event it completes handed to `onEvent` at once; `stop` and `usage` events
 * are kept. Reading ends when the stream does, when `signal` aborts, or at the first syntax
 * error — nothing after invalid JSON can be trusted (the parser ignores it anyway), and staff
 * should not wait for the rest of a broken answer. Never throws: a stream that fails is
 * `streamError` (or `aborted`). Every model call streams this way through
 * `model-call/forced-tool.ts`, whose `endingOf` decides what each ending means.
 *
 * @example
 * const streamed = await streamToolInput({
 *   events: model.stream({ ...request, signal }),
 *   parser: { textFields: ['general_advice'], arrayFields: { results: ticketSchema } },
 *   signal,
 *   onEvent: (event) => {
 *     if (event.type === 'text') send({ event: 'token', data: { content: event.delta } });
 *   },
 * });
 * if (streamed.streamError) return failed(streamed.streamError.error);
 */
export async function streamToolInput<
  E extends ToolCallStreamEvent,
  const T extends string,
  const A extends ElementSchemas,
>(options: StreamToolInputOptions<E, T, A>): Promise<ToolInputStreamOutcome<E>> {
  const { signal } = options;
  const parser = createToolInputParser(options.parser);
  let fragments = 0;
  let malformed = false;
  let stopReason: ToolInputStreamOutcome<E>['stopReason'];
  let usage: ToolInputStreamOutcome<E>['usage'];
  let streamError: ToolInputStreamOutcome<E>['streamError'];
  let aborted = false;
  try {
    for await (const event of options.events) {
      if (signal.aborted) {
        aborted = true;
        break;
      }
      if (event.type === 'stop') {
        stopReason = (event as Extract<E, { type: 'stop' }>).reason;
      } else if (event.type === 'usage') {
        const { type: _usage, ...counts } = event as Extract<E, { type: 'usage' }>;
        usage = counts as ToolInputStreamOutcome<E>['usage'];
      } else if (event.type === 'tool_input') {
        fragments++;
        for (const parsed of parser.write(event.fragment)) {
          if (parsed.type === 'error') malformed = true;
          options.onEvent(parsed);
        }
        if (malformed) break;
      }
    }
  } catch (error) {
    // An abort surfaces as the SDK's AbortError: that is the signal's ending, not a failure.
    if (signal.aborted) aborted = true;
    else streamError = { error };
  }
  return {
    final: parser.end(),
    fragments,
    malformed,
    aborted,
    ...(stopReason !== undefined ? { stopReason } : {}),
    ...(usage !== undefined ? { usage } : {}),
    ...(streamError !== undefined ? { streamError } : {}),
  };
}
