import type { LocalRequest } from './listen-h2c-and-http1.js';

/** Reads the whole request body and parses it as JSON; `undefined` when it is not valid JSON. */
export async function readJsonBody(request: LocalRequest): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.from(chunk as Uint8Array));
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text.length === 0 ? {} : JSON.parse(text);
  } catch {
    return undefined;
  }
}
