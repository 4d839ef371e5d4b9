import { ticketResultSchema, todoActionSchema } from '../../../functions/contract/answer.js';
import {
  createToolInputParser,
  type ToolInputEvent,
  type ToolInputResult,
} from '../../../functions/tool-input/tool-input-parser.js';

export const TEXT_FIELDS = ['general_advice', 'mail_draft'] as const;
export const ARRAY_FIELDS = { results: ticketResultSchema, todo_actions: todoActionSchema };

/** The answer parser as the chat handler configures it. */
export function createAnswerParser() {
  return createToolInputParser({ textFields: TEXT_FIELDS, arrayFields: ARRAY_FIELDS });
}

export type AnswerEvent = ToolInputEvent<(typeof TEXT_FIELDS)[number], typeof ARRAY_FIELDS>;

export interface ParserRun {
  /** Events of each `write()`, by fragment. */
  writes: AnswerEvent[][];
  result: ToolInputResult;
}

/** Feeds all fragments, then ends. */
export function runParser(fragments: readonly string[]): ParserRun {
  const parser = createAnswerParser();
  const writes = fragments.map((fragment) => parser.write(fragment));
  return { writes, result: parser.end() };
}
