import { createHash, createHmac } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';

/**
 * One SigV4-signed request to an AWS endpoint, sent with `fetch`: for the few calls a function
 * makes to a service it needs nothing else of (an SNS Publish per surge, a secret read per sync,
 * the vector index's calls at deploy), where an SDK client would add a package and cold-start
 * time for one request.
 */

/** Credentials as the Lambda runtime provides them (the function role's session). */
export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface SignedAwsRequest {
  /** The signing name: `sns`, `secretsmanager`, `aoss`. */
  readonly service: string;
  readonly region: string;
  readonly credentials: AwsCredentials;
  readonly url: URL;
  readonly method: string;
  /** Headers to sign besides `host` (the content type, a target, a payload hash). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** Sent without a body (GET, DELETE), though the empty payload is what was signed. */
  readonly omitBody?: boolean;
  readonly signal?: AbortSignal;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
}

export async function signedAwsFetch(request: SignedAwsRequest): Promise<Response> {
  const { url, body } = request;
  const signer = new SignatureV4({
    service: request.service,
    region: request.region,
    credentials: request.credentials,
    sha256: NodeSha256,
  });
  const signed = await signer.sign({
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
    query: {},
    headers: { host: url.host, ...request.headers },
    body,
  });
  return (request.fetch ?? fetch)(url, {
    method: request.method,
    headers: signed.headers,
    ...(request.omitBody ? {} : { body }),
    ...(request.signal && { signal: request.signal }),
  });
}

/** SHA-256 and HMAC-SHA-256 from node:crypto, in the shape the signer takes. */
class NodeSha256 {
  private readonly hash;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash =
      secret === undefined ? createHash('sha256') : createHmac('sha256', toBuffer(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(toBuffer(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
}

function toBuffer(data: string | ArrayBuffer | ArrayBufferView): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  return Buffer.from(data);
}
