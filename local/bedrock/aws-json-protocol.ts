import type { LocalRequest, LocalResponse } from './listen-h2c-and-http1.js';

/** An AWS JSON-protocol error as the SDK deserializes it. */
export interface AwsError {
  readonly statusCode: number;
  /** The modelled error name, e.g. `ThrottlingException`; the SDK throws a class of that name. */
  readonly type: string;
  readonly message: string;
}

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

/**
 * Sends an error the way AWS restJson1 services do: the error name in `x-amzn-errortype`
 * and `{ message }` in the body. The SDK reads the name from that header.
 */
export function sendAwsError(response: LocalResponse, error: AwsError): void {
  const body = JSON.stringify({ message: error.message });
  response.writeHead(error.statusCode, {
    'content-type': 'application/json',
    'x-amzn-errortype': error.type,
    'x-amzn-requestid': crypto.randomUUID(),
    'content-length': String(Buffer.byteLength(body)),
  });
  response.end(body);
}
