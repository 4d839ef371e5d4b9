import type { LocalResponse } from './listen-h2c-and-http1.js';

/** An AWS JSON-protocol error as the SDK deserializes it. */
export interface AwsError {
  readonly statusCode: number;
  /** The modelled error name, e.g. `ThrottlingException`; the SDK throws a class of that name. */
  readonly type: string;
  readonly message: string;
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
