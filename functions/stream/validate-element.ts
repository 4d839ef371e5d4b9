import type { z } from 'zod';
import type { ToolInputElementEvent, ToolInputInvalidElementEvent } from './tool-input-events.js';

/**
 * Checks one closed array element against its schema and says what to emit. A schema that throws
 * (a buggy refinement) counts as an invalid element: the parser must never throw.
 */
export function validateElement(
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
