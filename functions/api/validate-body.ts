import type { z } from 'zod';
import { HttpError } from './http-error.js';

/** Validates a parsed body; a too-long string is a 413, any other problem a 400 naming the field. */
export function validateBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') || 'body';
  const message = `${field}: ${issue?.message ?? 'invalid'}`;
  if (issue?.code === 'too_big') throw new HttpError(413, 'too_large', message);
  throw new HttpError(400, 'bad_request', message);
}
