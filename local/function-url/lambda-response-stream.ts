import { Writable } from 'node:stream';

/** The content type `HttpResponseStream.from` sets; the Function URL then expects a JSON prelude. */
export const HTTP_INTEGRATION_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';

type RawWrite = (chunk: Uint8Array | string) => void;

/**
 * The `responseStream` the Lambda Node runtime passes to a streamified handler, reduced to what
 * handlers observe: a Writable with `setContentType` and the `_onBeforeFirstWrite` hook that
 * `awslambda.HttpResponseStream.from` installs (see aws-lambda-nodejs-runtime-interface-client
 * src/stream/http-response-stream.ts). Every byte goes straight to `sink` — no buffering, unlike
 * SAM CLI or lambda-stream, so a test can see each write arrive on the socket.
 */
export class LambdaResponseStream extends Writable {
  contentType = 'application/octet-stream';
  _onBeforeFirstWrite?: (write: RawWrite) => void;
  private wroteFirst = false;

  constructor(private readonly sink: (chunk: Buffer) => void) {
    super({ decodeStrings: true });
  }

  setContentType(contentType: string): void {
    if (this.wroteFirst) throw new Error('Cannot set content-type, too late.');
    this.contentType = contentType;
  }

  override _write(
    chunk: Buffer,
    _encoding: BufferEncoding,
    callback: (error?: Error) => void,
  ): void {
    if (!this.wroteFirst) {
      this.wroteFirst = true;
      this._onBeforeFirstWrite?.((bytes) => this.sink(Buffer.from(bytes)));
    }
    if (chunk.length > 0) this.sink(chunk);
    callback();
  }

  override _final(callback: (error?: Error) => void): void {
    // An empty body still has to flush the prelude, as in the runtime.
    if (!this.wroteFirst) {
      this.wroteFirst = true;
      this._onBeforeFirstWrite?.((bytes) => this.sink(Buffer.from(bytes)));
    }
    callback();
  }
}
