import { createHash } from 'node:crypto';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { AttachmentStore, StoredAttachment } from '../../attachments/ports.js';
import { type Owner, ownerKey } from '../../chat/ports.js';
import {
  type AttachmentRef,
  attachmentTypeSchema,
  textEncodingSchema,
} from '../../contract/attachments.js';

export interface S3AttachmentStoreOptions {
  readonly s3: S3Client;
  readonly bucket: string;
  /** Folder of every attachment, e.g. `attachments/`; the lifecycle rule expires it. */
  readonly keyPrefix: string;
}

/**
 * `AttachmentStore` on S3: one object per attachment at `<prefix><owner digest>/<id>`, its
 * description in the object's metadata (`x-amz-meta-*`). The owner is part of the key, so an id
 * read by anyone else names no object (404 without a second lookup); the digest keeps user ids
 * (e-mail addresses) out of keys and access logs. The bucket encrypts every object and blocks
 * public access; its lifecycle rule removes attachments with the conversations' retention.
 */
export function createS3AttachmentStore(options: S3AttachmentStoreOptions): AttachmentStore {
  const { s3, bucket } = options;
  const keyOf = (owner: Owner, id: string) =>
    `${options.keyPrefix}${createHash('sha256').update(ownerKey(owner)).digest('hex')}/${id}`;
  const refOf = (id: string, metadata: Record<string, string> | undefined) => {
    const type = attachmentTypeSchema.safeParse(metadata?.type);
    if (!type.success) return undefined;
    const number = (value: string | undefined) =>
      value === undefined || value === '' ? undefined : Number(value);
    const width = number(metadata?.width);
    const height = number(metadata?.height);
    const name = metadata?.name ? decodeURIComponent(metadata.name) : undefined;
    const ref: AttachmentRef = {
      id,
      type: type.data,
      size: number(metadata?.size) ?? 0,
      ...(width !== undefined ? { width } : {}),
      ...(height !== undefined ? { height } : {}),
      ...(name !== undefined ? { name } : {}),
    };
    const encoding = textEncodingSchema.safeParse(metadata?.encoding);
    return { ref, ...(encoding.success ? { textEncoding: encoding.data } : {}) };
  };
  const isMissing = (error: unknown) =>
    error instanceof NoSuchKey ||
    error instanceof NotFound ||
    (error as { name?: string }).name === 'NoSuchKey' ||
    (error as { name?: string }).name === 'NotFound';
  return {
    async put(owner, attachment: StoredAttachment) {
      const { ref } = attachment;
      await s3.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: keyOf(owner, ref.id),
          Body: attachment.bytes,
          ContentType: ref.type,
          Metadata: {
            type: ref.type,
            size: String(ref.size),
            ...(ref.width !== undefined ? { width: String(ref.width) } : {}),
            ...(ref.height !== undefined ? { height: String(ref.height) } : {}),
            // Metadata travels as headers: ASCII only.
            ...(ref.name !== undefined ? { name: encodeURIComponent(ref.name) } : {}),
            ...(attachment.textEncoding ? { encoding: attachment.textEncoding } : {}),
          },
        }),
      );
    },
    async get(owner, id) {
      try {
        const object = await s3.send(
          new GetObjectCommand({ Bucket: bucket, Key: keyOf(owner, id) }),
        );
        const described = refOf(id, object.Metadata);
        if (!described || !object.Body) return undefined;
        return { ...described, bytes: await object.Body.transformToByteArray() };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async describe(owner, id) {
      try {
        const head = await s3.send(
          new HeadObjectCommand({ Bucket: bucket, Key: keyOf(owner, id) }),
        );
        return refOf(id, head.Metadata)?.ref;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async remove(owner, ids) {
      // At most five per message: one request each keeps the local S3 (no DeleteObjects) served.
      await Promise.all(
        ids.map((id) =>
          s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: keyOf(owner, id) })),
        ),
      );
    },
  };
}

/** The store with its own S3 client (traced by `capture`); a local endpoint is path-style. */
export function createS3AttachmentStoreWithClient(
  client: {
    readonly region: string;
    readonly s3Endpoint?: string;
    readonly capture: <Client extends object>(client: Client) => Client;
  },
  options: Omit<S3AttachmentStoreOptions, 's3'>,
): AttachmentStore {
  return createS3AttachmentStore({
    ...options,
    s3: client.capture(
      new S3Client({
        region: client.region,
        endpoint: client.s3Endpoint,
        forcePathStyle: client.s3Endpoint !== undefined,
      }),
    ),
  });
}
