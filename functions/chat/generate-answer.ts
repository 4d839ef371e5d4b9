import type { ChatEvent } from '../stream/chat-events.js';
import { createToolInputParser } from '../tool-input/tool-input-parser.js';
import {
  type Answer,
  MAX_RESULTS,
  type TicketResult,
  ticketResultSchema,
  todoActionSchema,
} from './answer-schema.js';
import { type ChatModel, ChatModelError, type ChatModelRequest } from './chat-model.js';
import { finalizeAnswer } from './finalize-answer.js';
import { groundTicket } from './ground-ticket.js';

export type GenerationStatus = 'complete' | 'truncated' | 'stopped' | 'failed';

export interface GenerationOutcome {
  readonly status: GenerationStatus;
  /** The validated answer (partial when truncated, stopped or failed). */
  readonly answer: Answer;
  readonly failure?: {
    readonly code: string;
    readonly message: string;
    readonly retryable: boolean;
  };
}

export interface GenerateAnswerInput {
  readonly model: ChatModel;
  readonly request: Omit<ChatModelRequest, 'signal'>;
  readonly allowedIssueIds: ReadonlySet<string>;
  readonly send: (event: ChatEvent) => void;
  /** Aborted by a stop request or the time budget; `stopReason()` tells which happened. */
  readonly signal: AbortSignal;
}

/**
 * Streams the model's tool input through the incremental parser: advice deltas become `token`
 * events (one per upstream fragment), each grounded results element a `ticket` event the moment
 * its object closes. Never throws: every ending is an outcome.
 */
export async function generateAnswer(input: GenerateAnswerInput): Promise<GenerationOutcome> {
  const parser = createToolInputParser({
    textFields: ['general_advice'],
    arrayFields: { results: ticketResultSchema, todo_actions: todoActionSchema },
  });
  const tickets: TicketResult[] = [];
  const seen = new Set<string>();
  let stopReason: string | undefined;
  let fragments = 0;
  let failure: GenerationOutcome['failure'];

  try {
    for await (const event of input.model.stream({ ...input.request, signal: input.signal })) {
      if (input.signal.aborted) break;
      if (event.type === 'stop') stopReason = event.reason;
      if (event.type !== 'tool_input') continue;
      fragments++;
      for (const parsed of parser.write(event.fragment)) {
        if (parsed.type === 'text' && parsed.field === 'general_advice') {
          input.send({ event: 'token', data: { content: parsed.delta } });
        } else if (parsed.type === 'element' && parsed.field === 'results') {
          const grounded = groundTicket(parsed.value as TicketResult, input.allowedIssueIds);
          if (!grounded || seen.has(grounded.issue_id) || tickets.length >= MAX_RESULTS) continue;
          seen.add(grounded.issue_id);
          tickets.push(grounded);
          input.send({ event: 'ticket', data: grounded });
        } else if (parsed.type === 'error') {
          failure = {
            code: 'invalid_model_output',
            message: 'The model returned malformed output',
            retryable: true,
          };
        }
      }
      if (failure) break;
    }
  } catch (error) {
    if (!input.signal.aborted) failure = toFailure(error);
  }

  const final = parser.end();
  const answer = finalizeAnswer(final.value, tickets);
  if (failure) return { status: 'failed', answer, failure };
  if (input.signal.aborted) return { status: 'stopped', answer };
  if (stopReason === undefined) {
    // Bedrock always ends with messageStop; a stream that just ends was cut off.
    return {
      status: 'failed',
      answer,
      failure: {
        code: 'model_stream_failed',
        message: 'The answer was interrupted. Please try again.',
        retryable: true,
      },
    };
  }
  if (fragments === 0) {
    // The model ended without calling the tool (e.g. a refusal or a content filter).
    return {
      status: 'failed',
      answer,
      failure: {
        code: 'empty_model_output',
        message: 'The model returned no answer. Please try again.',
        retryable: true,
      },
    };
  }
  if (final.error) {
    return {
      status: 'failed',
      answer,
      failure: {
        code: 'invalid_model_output',
        message: 'The model returned malformed output',
        retryable: true,
      },
    };
  }
  if (stopReason === 'max_tokens' || final.truncated) return { status: 'truncated', answer };
  return { status: 'complete', answer };
}

function toFailure(error: unknown): NonNullable<GenerationOutcome['failure']> {
  if (error instanceof ChatModelError) {
    const messages = {
      throttled: 'The AI model is busy right now. Please try again in a moment.',
      unavailable: 'The AI model is temporarily unavailable. Please try again.',
      stream_failed: 'The answer was interrupted. Please try again.',
      rejected: 'The AI model rejected the request.',
    } as const;
    return {
      code: `model_${error.code}`,
      message: messages[error.code],
      retryable: error.retryable,
    };
  }
  return {
    code: 'internal',
    message: 'Something went wrong while generating the answer.',
    retryable: true,
  };
}
