import { crc32 } from 'node:zlib';

/**
 * The body of an S3 request as it arrives, decoded: plain, or `Content-Encoding: aws-chunked`
 * (the SDK's flexible checksums put the checksum in a trailer after the last chunk when it cannot
 * compute it up front, i.e. for stream bodies). Returns the payload bytes and the checksum the
 * request carried, from the `x-amz-checksum-crc32` header or the trailer.
 */
export interface DecodedRequestBody {
  readonly payload: Buffer;
  /** Base64 big-endian CRC32, as S3 carries it; undefined when the request sent none. */
  readonly crc32?: string;
  /** Another algorithm the request named (`x-amz-checksum-sha256` …): accepted, not verified. */
  readonly otherChecksum?: string;
}

/** The request body is not valid aws-chunked encoding (S3 answers 400 `IncompleteBody`). */
export class MalformedChunkedBodyError extends Error {
  override readonly name = 'MalformedChunkedBodyError';
}

const CRLF = Buffer.from('\r\n');

/**
 * Decodes `aws-chunked`: `<hex size>[;chunk-signature=…]\r\n<bytes>\r\n` repeated, a zero-size
 * chunk, then trailer lines `name:value\r\n` and an empty line (AWS docs, "SigV4 streaming"
 * — https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html). Chunk signatures are
 * not checked: the local endpoint accepts any signature, as it does for the headers.
 */
export function decodeAwsChunked(body: Buffer): { payload: Buffer; trailers: Map<string, string> } {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = body.indexOf(CRLF, offset);
    if (lineEnd === -1) throw new MalformedChunkedBodyError('aws-chunked: missing chunk header');
    const sizeText = body.subarray(offset, lineEnd).toString('latin1').split(';')[0] ?? '';
    const size = Number.parseInt(sizeText, 16);
    if (!/^[0-9a-fA-F]+$/.test(sizeText) || !Number.isFinite(size)) {
      throw new MalformedChunkedBodyError(`aws-chunked: bad chunk size "${sizeText}"`);
    }
    offset = lineEnd + 2;
    if (size === 0) break;
    if (
      offset + size + 2 > body.length ||
      !body.subarray(offset + size, offset + size + 2).equals(CRLF)
    ) {
      throw new MalformedChunkedBodyError('aws-chunked: chunk shorter than its size');
    }
    parts.push(body.subarray(offset, offset + size));
    offset += size + 2;
  }
  const trailers = new Map<string, string>();
  for (const line of body.subarray(offset).toString('latin1').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0)
      trailers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { payload: Buffer.concat(parts), trailers };
}

/**
 * Reads and decodes a request body. `headers` are the request's (lower-case names).
 * @throws MalformedChunkedBodyError for a broken aws-chunked body
 */
export async function readS3RequestBody(
  request: AsyncIterable<unknown>,
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Promise<DecodedRequestBody> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(Buffer.from(chunk as Uint8Array));
  const raw = Buffer.concat(chunks);
  const header = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const encodings = (header('content-encoding') ?? '').split(',').map((value) => value.trim());
  const chunked =
    encodings.includes('aws-chunked') ||
    (header('x-amz-content-sha256') ?? '').startsWith('STREAMING-');
  const { payload, trailers } = chunked
    ? decodeAwsChunked(raw)
    : { payload: raw, trailers: new Map<string, string>() };
  const checksum = (name: string) => header(name) ?? trailers.get(name);
  const otherChecksum = ['crc32c', 'crc64nvme', 'sha1', 'sha256']
    .map((algorithm) => checksum(`x-amz-checksum-${algorithm}`))
    .find((value) => value !== undefined);
  return { payload, crc32: checksum('x-amz-checksum-crc32'), otherChecksum };
}

/** The CRC32 of `bytes` as S3 writes it: the 4 big-endian bytes, base64 (node:zlib, Node ≥ 20.15). */
export function s3Crc32(bytes: Uint8Array): string {
  const digest = Buffer.alloc(4);
  digest.writeUInt32BE(crc32(bytes));
  return digest.toString('base64');
}
