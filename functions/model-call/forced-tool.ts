import * as z from 'zod';
import type { ToolDefinition } from '../chat/ports.js';

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
  const { $schema: _notForTheModel, ...inputSchema } = z.toJSONSchema(definition.input, {
    target: 'draft-7',
  });
  return Object.freeze({
    name: definition.name,
    description: definition.description,
    inputSchema,
  });
}
