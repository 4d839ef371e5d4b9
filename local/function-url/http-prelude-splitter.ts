/** The metadata `awslambda.HttpResponseStream.from` writes before the body. */
export interface HttpResponsePrelude {
  statusCode?: number;
  headers?: Record<string, string>;
  cookies?: string[];
}

/** The content type `HttpResponseStream.from` sets; the Function URL then expects a JSON prelude. */
export const HTTP_INTEGRATION_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';

const DELIMITER_LENGTH = 8;

/**
 * Splits the byte stream of an `HttpResponseStream` into its JSON prelude and the body, the way
 * the Function URL service reads it: everything before the first run of 8 NUL bytes is the
 * prelude. Bytes after it are handed on as soon as they arrive.
 */
export class HttpPreludeSplitter {
  private pending: Buffer = Buffer.alloc(0);
  private prelude?: HttpResponsePrelude;

  constructor(
    private readonly onPrelude: (prelude: HttpResponsePrelude) => void,
    private readonly onBody: (chunk: Buffer) => void,
  ) {}

  /** Throws when the bytes before the delimiter are not a JSON prelude. */
  push(chunk: Buffer): void {
    if (this.prelude) {
      this.onBody(chunk);
      return;
    }
    this.pending = Buffer.concat([this.pending, chunk]);
    const end = findDelimiter(this.pending);
    if (end < 0) return;
    this.prelude = JSON.parse(
      this.pending.subarray(0, end).toString('utf8'),
    ) as HttpResponsePrelude;
    this.onPrelude(this.prelude);
    const rest = this.pending.subarray(end + DELIMITER_LENGTH);
    this.pending = Buffer.alloc(0);
    if (rest.length > 0) this.onBody(rest);
  }

  get hasPrelude(): boolean {
    return this.prelude !== undefined;
  }

  /** Bytes received that are still waiting for the delimiter. */
  get bytesBeforeDelimiter(): number {
    return this.pending.length;
  }
}

function findDelimiter(buffer: Buffer): number {
  let run = 0;
  for (let index = 0; index < buffer.length; index++) {
    run = buffer[index] === 0 ? run + 1 : 0;
    if (run === DELIMITER_LENGTH) return index - DELIMITER_LENGTH + 1;
  }
  return -1;
}
