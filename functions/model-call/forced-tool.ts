import * as z from 'zod';
import { ChatModelError, type ChatModelErrorCode } from '../chat/errors.js';
import type { ChatModel, ChatModelEvent, ChatModelRequest, ToolDefinition } from '../chat/ports.js';
import type { StreamErrorCode } from '../contract/errors.js';
import {
  type StreamToolInputOptions,
  streamToolInput,
  type ToolInputStreamOutcome,
} from '../tool-input/stream-tool-input.js';
import type { ElementSchemas } from '../tool-input/tool-input-parser.js';

/**
 * One forced-tool model call streamed through the incremental parser, and the one policy that
 * says how it ended: `complete`, `partial` (something worth keeping arrived before it broke off)
 * or `failed`, with the error code each ending gets. Chat answers, knowledge drafts, mail-draft
 * refinements and hand-off summaries all end by this table; a feature brings only the noun its
 * messages use and what counts, for it, as having arrived and as worth keeping.
 */

/**
 * A forced tool as the model reads it, from the zod schema of its input: the one place a tool's
 * JSON Schema is written (draft-7, as Bedrock's Converse tool spec takes it, without the
 * `$schema` keyword the model does not need). Every model-backed feature defines its tool here,
 * so the schema the parser and the contract validate is the schema the model was given.
 */
export function defineForcedTool(definition: {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType;
}): ToolDefinition {
  let inputSchema: Record<string, unknown> | undefined;
  return Object.freeze({
    name: definition.name,
    description: definition.description,
    // Written on first use, not at module load: every feature's tool is defined at import, and a
    // cold start that only chats should not convert the others' schemas (ADR 0034).
    get inputSchema() {
      if (inputSchema === undefined) {
        const { $schema: _notForTheModel, ...schema } = z.toJSONSchema(definition.input, {
          target: 'draft-7',
        });
        inputSchema = schema;
      }
      return inputSchema;
    },
  });
}

/** What the `error` event of a model call that did not complete says. */
export interface ModelCallFailure {
  readonly code: StreamErrorCode;
  readonly message: string;
  readonly retryable: boolean;
}

/**
 * How a stream ended, as the table below reads it, in the order it is checked: a guardrail
 * block, a failed stream, invalid JSON, the signal (stop request or deadline), a stream that
 * just ended (Bedrock always ends with messageStop, so it was cut off), nothing arrived, a
 * syntax error at the end, out of tokens, a truncated tool input.
 */
export type EndingCause =
  | 'guardrail'
  | 'aborted'
  | 'stream_error'
  | 'malformed'
  | 'cut_off'
  | 'empty'
  | 'max_tokens'
  | 'truncated';

export type ModelCallEnding =
  | { readonly status: 'complete' }
  | {
      readonly status: 'partial' | 'failed';
      readonly cause: EndingCause;
      readonly failure: ModelCallFailure;
      /**
       * The call was cut short from outside (the signal, a failed stream), not by what the model
       * wrote: a partial result is shown with the `error` event, not only marked incomplete.
       */
      readonly interrupted: boolean;
    };

/** How one feature words its endings. */
export interface EndingWords {
  /** What the call produces, in the messages: `answer`, `draft`, `summary`, `refined draft`. */
  readonly noun: string;
  /** The code of an aborted call. @default 'timeout' */
  readonly abortedCode?: Extract<StreamErrorCode, 'timeout' | 'draft_stopped'>;
}

/** What the feature saw arrive, which only it can judge. */
export interface EndingProgress {
  /** Anything of the tool input arrived; nothing: `empty_model_output`. */
  readonly arrived: boolean;
  /** What arrived is worth keeping when the call breaks off (`partial`); otherwise `failed`. */
  readonly kept: boolean;
}

/** The ending table: how a stream ended → complete, partial or failed, and the error code. */
export function endingOf(
  streamed: ToolInputStreamOutcome<ChatModelEvent>,
  progress: EndingProgress,
  words: EndingWords,
): ModelCallEnding {
  const { noun } = words;
  const ended = (
    cause: EndingCause,
    failure: ModelCallFailure,
    keepable = progress.kept,
  ): ModelCallEnding => ({
    status: keepable ? 'partial' : 'failed',
    cause,
    failure,
    interrupted: cause === 'aborted' || cause === 'stream_error',
  });
  const { final, stopReason } = streamed;
  if (stopReason === 'guardrail_intervened') {
    // The guardrail judged the input or the output unsafe: nothing of it is kept, and asking
    // again gives the same verdict.
    return ended(
      'guardrail',
      {
        code: 'guardrail_intervened',
        message: `The content safety filter (Bedrock Guardrail) blocked this ${noun}. Rephrase the inquiry, or check the tickets it would cite.`,
        retryable: false,
      },
      false,
    );
  }
  if (streamed.streamError) return ended('stream_error', toFailure(streamed.streamError.error));
  const malformed: ModelCallFailure = {
    code: 'invalid_model_output',
    message: `The AI model returned ${article(noun)} ${noun} that could not be read. Please try again.`,
    retryable: true,
  };
  if (streamed.malformed) return ended('malformed', malformed);
  if (streamed.aborted) {
    return ended('aborted', {
      code: words.abortedCode ?? 'timeout',
      message: `The ${noun} took too long and was stopped. Please try again.`,
      retryable: true,
    });
  }
  if (stopReason === undefined) {
    return ended('cut_off', {
      code: 'model_stream_failed',
      message: `The ${noun} was interrupted. Please try again.`,
      retryable: true,
    });
  }
  if (!progress.arrived) {
    // The model ended without calling the tool (e.g. a refusal or a content filter).
    return ended(
      'empty',
      {
        code: 'empty_model_output',
        message: `The model returned no ${noun}. Please try again.`,
        retryable: true,
      },
      false,
    );
  }
  if (final.error) return ended('malformed', malformed);
  if (stopReason === 'max_tokens' || final.truncated) {
    return ended(stopReason === 'max_tokens' ? 'max_tokens' : 'truncated', {
      code: 'model_output_truncated',
      message: `The ${noun} broke off before it was finished. Please try again.`,
      retryable: true,
    });
  }
  return { status: 'complete' };
}

function article(noun: string): string {
  return /^[aeiou]/i.test(noun) ? 'an' : 'a';
}

/** A model error as the `error` event describes it to staff. */
export function toFailure(error: unknown): ModelCallFailure {
  if (error instanceof ChatModelError) {
    const messages = {
      model_throttled: 'The AI model is busy right now. Please try again in a moment.',
      model_unavailable: 'The AI model is temporarily unavailable. Please try again.',
      model_stream_failed: 'The answer was interrupted. Please try again.',
      model_rejected: 'The AI model rejected the request.',
    } as const satisfies Record<ChatModelErrorCode, string>;
    return { code: error.code, message: messages[error.code], retryable: error.retryable };
  }
  return {
    code: 'internal',
    message: 'Something went wrong while generating the answer.',
    retryable: true,
  };
}

/**
 * Streams one forced-tool call: the request to the model with `signal`, its tool input through
 * the parser, each parser event to `onEvent`. Never throws; the caller reads the ending with
 * {@link endingOf} once it knows what arrived.
 */
export async function streamForcedTool<
  const T extends string,
  const A extends ElementSchemas,
>(input: {
  readonly model: ChatModel;
  readonly request: Omit<ChatModelRequest, 'signal'>;
  readonly signal: AbortSignal;
  readonly parser: StreamToolInputOptions<ChatModelEvent, T, A>['parser'];
  readonly onEvent: StreamToolInputOptions<ChatModelEvent, T, A>['onEvent'];
}): Promise<ToolInputStreamOutcome<ChatModelEvent>> {
  const streamed = await streamToolInput({
    events: input.model.stream({ ...input.request, signal: input.signal }),
    parser: input.parser,
    signal: input.signal,
    onEvent: input.onEvent,
  });
  // A model that ends its stream quietly when the signal aborts was stopped all the same.
  return input.signal.aborted && !streamed.aborted ? { ...streamed, aborted: true } : streamed;
}
