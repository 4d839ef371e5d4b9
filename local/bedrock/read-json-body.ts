import type { LocalRequest, LocalResponse } from './listen-h2c-and-http1.js';
import { sendAwsError } from './send-aws-error.js';

/**
 * Reads the whole request body as a JSON object. When it is not one, answers with AWS's
 * `ValidationException` shape and returns `undefined`, so a handler only has to stop.
 */
export async function readJsonBody<T extends object>(
  request: LocalRequest,
  response: LocalResponse,
): Promise<T | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.from(chunk as Uint8Array));
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = text.length === 0 ? {} : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (typeof body === 'object' && body !== null) return body as T;
  sendAwsError(response, { statusCode: 400, type: 'ValidationException', message: 'Invalid JSON' });
  return undefined;
}
