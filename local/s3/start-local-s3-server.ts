import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MalformedChunkedBodyError, readS3RequestBody, s3Crc32 } from './aws-chunked-body.js';
import { createFileObjectStore, UnsupportedKeyError } from './file-object-store.js';

export interface LocalS3ServerOptions {
  /** Objects are files `<root>/<bucket>/<key>`. */
  readonly root: string;
  /** The buckets that exist (created as folders if missing); any other bucket → NoSuchBucket. */
  readonly buckets: readonly string[];
  /** @default 0 (a random free port) */
  readonly port?: number;
  /** @default '127.0.0.1' */
  readonly host?: string;
}

export interface LocalS3Server {
  /** For `S3Client({ endpoint, forcePathStyle: true })` (`S3_ENDPOINT`). */
  readonly endpoint: string;
  readonly root: string;
  close(): Promise<void>;
}

/** An S3 error as the SDK deserializes it: status, `<Code>` and message. */
interface S3Error {
  readonly statusCode: number;
  readonly code: string;
  readonly message: string;
  /** Extra elements S3 adds, e.g. `Key` for NoSuchKey, `BucketName` for NoSuchBucket. */
  readonly details?: Readonly<Record<string, string>>;
}

const LIST_PAGE_MAX = 1000;

/**
 * Starts a local S3 endpoint speaking the REST protocol path-style (`/{bucket}/{key}`), enough
 * for the knowledge-capture publisher and its tests: PutObject, GetObject, HeadObject,
 * DeleteObject and ListObjectsV2, with S3's headers (ETag, Last-Modified, Content-Length,
 * `x-amz-meta-*`) and XML error bodies, so the real `S3Client` raises its typed errors
 * (`NoSuchKey`, `NoSuchBucket`, `NotFound` for a HEAD without body). Flexible checksums are
 * honoured: `aws-chunked` bodies are decoded and a CRC32 (header or trailer) is verified — a
 * mismatch is 400 `BadDigest`. Other checksum algorithms are accepted unverified. Signatures are
 * not checked. Not served: buckets' own operations, multipart uploads, versions, ranges,
 * conditional requests, ACLs.
 *
 * @example
 * const s3 = await startLocalS3Server({ root: '.data/s3', buckets: ['local-knowledge-documents'] });
 * const client = new S3Client({
 *   endpoint: s3.endpoint,
 *   forcePathStyle: true,
 *   region: 'us-east-1',
 *   credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
 * });
 */
export async function startLocalS3Server(options: LocalS3ServerOptions): Promise<LocalS3Server> {
  const store = createFileObjectStore(options.root);
  for (const bucket of options.buckets) await store.createBucket(bucket);
  const buckets = new Set(options.buckets);

  const route = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', 'http://local');
    // Split the path as sent: `URL` would resolve `..` segments, turning a key that the store
    // must refuse into another bucket's or key's path.
    const rawPath = (request.url ?? '/').split('?')[0] ?? '/';
    const [, rawBucket = '', ...rawKey] = rawPath.split('/');
    const bucket = decodeURIComponent(rawBucket);
    const key = decodeURIComponent(rawKey.join('/'));
    const method = request.method ?? 'GET';
    if (bucket === '') {
      return sendS3Error(response, method, {
        statusCode: 501,
        code: 'NotImplemented',
        message: 'The local S3 serves path-style object requests only (no ListBuckets).',
      });
    }
    if (!buckets.has(bucket) || !(await store.hasBucket(bucket))) {
      return sendS3Error(response, method, {
        statusCode: 404,
        code: 'NoSuchBucket',
        message: 'The specified bucket does not exist',
        details: { BucketName: bucket },
      });
    }
    if (key === '') {
      if (method === 'GET' && url.searchParams.get('list-type') === '2') {
        return listObjectsV2(response, bucket, url.searchParams);
      }
      return sendS3Error(response, method, {
        statusCode: 501,
        code: 'NotImplemented',
        message: `The local S3 does not serve ${method} on a bucket (only ListObjectsV2).`,
      });
    }
    switch (method) {
      case 'PUT':
        return putObject(request, response, bucket, key);
      case 'GET':
      case 'HEAD':
        return getObject(response, bucket, key, method === 'HEAD');
      case 'DELETE':
        await store.delete(bucket, key);
        response.writeHead(204, baseHeaders());
        response.end();
        return;
      default:
        return sendS3Error(response, method, {
          statusCode: 405,
          code: 'MethodNotAllowed',
          message: `The local S3 does not serve ${method} on an object.`,
        });
    }
  };

  const putObject = async (
    request: IncomingMessage,
    response: ServerResponse,
    bucket: string,
    key: string,
  ) => {
    if (request.headers['x-amz-copy-source'] !== undefined) {
      return sendS3Error(response, 'PUT', {
        statusCode: 501,
        code: 'NotImplemented',
        message: 'CopyObject is not served by the local S3.',
      });
    }
    let body: Awaited<ReturnType<typeof readS3RequestBody>>;
    try {
      body = await readS3RequestBody(request, request.headers);
    } catch (error) {
      if (!(error instanceof MalformedChunkedBodyError)) throw error;
      return sendS3Error(response, 'PUT', {
        statusCode: 400,
        code: 'IncompleteBody',
        message: error.message,
      });
    }
    const declaredLength = request.headers['x-amz-decoded-content-length'];
    if (declaredLength !== undefined && Number(declaredLength) !== body.payload.length) {
      return sendS3Error(response, 'PUT', {
        statusCode: 400,
        code: 'IncompleteBody',
        message: `x-amz-decoded-content-length is ${declaredLength} but the body has ${body.payload.length} bytes`,
      });
    }
    const actualCrc32 = s3Crc32(body.payload);
    if (body.crc32 !== undefined && body.crc32 !== actualCrc32) {
      return sendS3Error(response, 'PUT', {
        statusCode: 400,
        code: 'BadDigest',
        message: 'The CRC32 you specified did not match the calculated checksum.',
      });
    }
    const userMetadata = Object.fromEntries(
      Object.entries(request.headers).flatMap(([name, value]) =>
        name.startsWith('x-amz-meta-') && typeof value === 'string'
          ? [[name.slice('x-amz-meta-'.length), value]]
          : [],
      ),
    );
    const etag = await store.put(bucket, key, body.payload, {
      contentType: request.headers['content-type'],
      userMetadata,
    });
    response.writeHead(200, {
      ...baseHeaders(),
      etag,
      // S3 echoes the checksum it stored when the request carried one.
      ...(body.crc32 !== undefined ? { 'x-amz-checksum-crc32': actualCrc32 } : {}),
      'content-length': '0',
    });
    response.end();
  };

  const getObject = async (
    response: ServerResponse,
    bucket: string,
    key: string,
    headOnly: boolean,
  ) => {
    const object = await store.get(bucket, key);
    if (object === undefined) {
      return sendS3Error(response, headOnly ? 'HEAD' : 'GET', {
        statusCode: 404,
        code: 'NoSuchKey',
        message: 'The specified key does not exist.',
        details: { Key: key },
      });
    }
    response.writeHead(200, {
      ...baseHeaders(),
      etag: object.etag,
      'last-modified': object.lastModified.toUTCString(),
      'content-type': object.contentType,
      'content-length': String(object.body.length),
      'accept-ranges': 'bytes',
      ...Object.fromEntries(
        Object.entries(object.userMetadata).map(([name, value]) => [`x-amz-meta-${name}`, value]),
      ),
    });
    response.end(headOnly ? undefined : object.body);
  };

  const listObjectsV2 = async (
    response: ServerResponse,
    bucket: string,
    parameters: URLSearchParams,
  ) => {
    const prefix = parameters.get('prefix') ?? '';
    const delimiter = parameters.get('delimiter') ?? '';
    const maxKeys = Math.min(Number(parameters.get('max-keys') ?? LIST_PAGE_MAX), LIST_PAGE_MAX);
    const urlEncoded = parameters.get('encoding-type') === 'url';
    const continuationToken = parameters.get('continuation-token');
    const after = continuationToken
      ? Buffer.from(continuationToken, 'base64url').toString('utf8')
      : (parameters.get('start-after') ?? '');
    if (!Number.isInteger(maxKeys) || maxKeys < 0) {
      return sendS3Error(response, 'GET', {
        statusCode: 400,
        code: 'InvalidArgument',
        message: 'max-keys must be a non-negative integer',
      });
    }
    // Keys (and common prefixes, each counted once) after the marker, in order.
    const entries: (
      | { kind: 'object'; key: string; object: ObjectRow }
      | { kind: 'prefix'; key: string }
    )[] = [];
    const seenPrefixes = new Set<string>();
    for (const object of await store.list(bucket, prefix)) {
      const rest = object.key.slice(prefix.length);
      const cut = delimiter === '' ? -1 : rest.indexOf(delimiter);
      if (cut === -1) {
        if (object.key > after) entries.push({ kind: 'object', key: object.key, object });
        continue;
      }
      const common = prefix + rest.slice(0, cut + delimiter.length);
      if (common > after && !seenPrefixes.has(common)) {
        seenPrefixes.add(common);
        entries.push({ kind: 'prefix', key: common });
      }
    }
    const page = entries.slice(0, maxKeys);
    const truncated = entries.length > page.length;
    const encode = (text: string) => xmlText(urlEncoded ? encodeURIComponent(text) : text);
    const xml = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
      `<Name>${xmlText(bucket)}</Name>`,
      `<Prefix>${encode(prefix)}</Prefix>`,
      delimiter === '' ? '' : `<Delimiter>${encode(delimiter)}</Delimiter>`,
      `<MaxKeys>${maxKeys}</MaxKeys>`,
      `<KeyCount>${page.length}</KeyCount>`,
      `<IsTruncated>${truncated}</IsTruncated>`,
      urlEncoded ? '<EncodingType>url</EncodingType>' : '',
      continuationToken
        ? `<ContinuationToken>${xmlText(continuationToken)}</ContinuationToken>`
        : '',
      truncated
        ? `<NextContinuationToken>${Buffer.from(page.at(-1)?.key ?? '').toString('base64url')}</NextContinuationToken>`
        : '',
      ...page.map((entry) =>
        entry.kind === 'prefix'
          ? `<CommonPrefixes><Prefix>${encode(entry.key)}</Prefix></CommonPrefixes>`
          : `<Contents><Key>${encode(entry.key)}</Key><LastModified>${entry.object.lastModified.toISOString()}</LastModified><ETag>${xmlText(entry.object.etag)}</ETag><Size>${entry.object.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`,
      ),
      '</ListBucketResult>',
    ].join('');
    sendXml(response, 200, xml);
  };

  const server = createServer((request, response) => {
    route(request, response).catch((error: unknown) => {
      if (error instanceof UnsupportedKeyError) {
        sendS3Error(response, request.method ?? 'GET', {
          statusCode: 400,
          code: 'InvalidArgument',
          message: error.message,
        });
        return;
      }
      // A bug here must show up as a 500 the SDK reports, not as a hung request.
      console.error('local S3 endpoint failed', error);
      if (!response.headersSent) {
        sendS3Error(response, request.method ?? 'GET', {
          statusCode: 500,
          code: 'InternalError',
          message: 'The local S3 endpoint failed; see its log.',
        });
      } else response.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    endpoint: `http://${address.address}:${address.port}`,
    root: options.root,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

type ObjectRow = Awaited<ReturnType<ReturnType<typeof createFileObjectStore>['list']>>[number];

const baseHeaders = () => ({
  'x-amz-request-id': randomUUID().replaceAll('-', '').slice(0, 16).toUpperCase(),
  'x-amz-id-2': randomUUID(),
  server: 'LocalS3',
});

const xmlText = (text: string) =>
  text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

function sendXml(response: ServerResponse, statusCode: number, xml: string): void {
  response.writeHead(statusCode, {
    ...baseHeaders(),
    'content-type': 'application/xml',
    'content-length': String(Buffer.byteLength(xml)),
  });
  response.end(xml);
}

/**
 * S3's error: an XML `<Error>` body with `<Code>`, from which the SDK picks the error class. A
 * HEAD response has no body, so the SDK names the error by status (`NotFound` for 404).
 */
function sendS3Error(response: ServerResponse, method: string, error: S3Error): void {
  if (method === 'HEAD') {
    response.writeHead(error.statusCode, baseHeaders());
    response.end();
    return;
  }
  const requestId = randomUUID();
  sendXml(
    response,
    error.statusCode,
    [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<Error><Code>${error.code}</Code><Message>${xmlText(error.message)}</Message>`,
      ...Object.entries(error.details ?? {}).map(
        ([name, value]) => `<${name}>${xmlText(value)}</${name}>`,
      ),
      `<RequestId>${requestId}</RequestId></Error>`,
    ].join(''),
  );
}
