import type { z } from 'zod';
import { type Answer, answerSchema, type TicketResult } from './answer-schema.js';

const fieldSchemas = answerSchema.shape;

/**
 * The answer from the parser's final (possibly partial) value: each field kept only if it is
 * valid on its own, `results` replaced by the grounded tickets already streamed, so `result`
 * never contains a ticket the browser did not get as a `ticket` event.
 */
export function finalizeAnswer(value: unknown, groundedResults: readonly TicketResult[]): Answer {
  const source = (typeof value === 'object' && value !== null ? value : {}) as Record<
    string,
    unknown
  >;
  const pick = <K extends keyof typeof fieldSchemas>(
    key: K,
  ): z.infer<(typeof fieldSchemas)[K]> | undefined => {
    const parsed = fieldSchemas[key].safeParse(source[key]);
    return parsed.success ? (parsed.data as z.infer<(typeof fieldSchemas)[K]>) : undefined;
  };
  const question = pick('question');
  const responseType = pick('response_type') ?? (question ? 'clarification' : 'results');
  const answer: Answer = {
    response_type: responseType,
    general_advice: pick('general_advice') ?? '',
    question,
    options: pick('options'),
    results:
      groundedResults.length > 0 || responseType === 'results' ? [...groundedResults] : undefined,
    mail_draft: pick('mail_draft'),
    todo_actions: pick('todo_actions'),
    reasoning: pick('reasoning'),
  };
  // Every field was validated on its own, so this holds; the fallback keeps the promise that
  // finishing an answer never throws, whatever a future schema change does.
  const parsed = answerSchema.safeParse(dropUndefined(answer));
  return parsed.success
    ? parsed.data
    : { response_type: responseType, general_advice: answer.general_advice };
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
