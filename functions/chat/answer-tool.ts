import * as z from 'zod';
import { ANSWER_TOOL_NAME, answerSchema } from './answer-schema.js';
import type { ToolDefinition } from './chat-model.js';

/**
 * The forced tool, its JSON Schema generated from the zod schema so validation and the model's
 * contract cannot drift. Computed once: the same object (and bytes) for every request.
 */
export const answerTool: ToolDefinition = Object.freeze({
  name: ANSWER_TOOL_NAME,
  description: 'Submit the structured answer for the service-desk staff member.',
  inputSchema: withoutSchemaKeyword(z.toJSONSchema(answerSchema, { target: 'draft-7' })),
});

function withoutSchemaKeyword(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = schema;
  return rest;
}
