import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';

/** One stored object as S3 describes it. */
export interface StoredObject {
  readonly key: string;
  readonly body: Buffer;
  /** Quoted MD5 hex of the body, as S3 gives for a single-part PUT. */
  readonly etag: string;
  readonly lastModified: Date;
  readonly contentType: string;
  /** `x-amz-meta-*` headers, names without the prefix. */
  readonly userMetadata: Readonly<Record<string, string>>;
}

export interface ObjectSummary {
  readonly key: string;
  readonly size: number;
  readonly lastModified: Date;
  readonly etag: string;
}

/** A key the file layout cannot hold (S3 itself would accept it). */
export class UnsupportedKeyError extends Error {
  override readonly name = 'UnsupportedKeyError';
}

/** What the store keeps besides the bytes; in a parallel tree so a bucket folder holds only objects. */
interface ObjectAttributes {
  readonly contentType: string;
  readonly userMetadata: Record<string, string>;
}

const TEMP_SUFFIX = '.local-s3-partial';
/** Outside every bucket: bucket names cannot start with a dot. */
const ATTRIBUTES_DIR = '.object-attributes';
const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

/**
 * Objects as files: `<root>/<bucket>/<key>`, a key's `/` making folders, so other local pieces
 * (the local Knowledge Base's data source) read a bucket folder as the documents it holds.
 *
 * Writes are atomic: the body goes to a temporary file beside the target, then `rename` replaces
 * the target in one step (POSIX rename is atomic within a file system), so a reader — this store
 * or the Knowledge Base reading the folder — sees the old object or the new one, never half of
 * one. Concurrent PUTs of one key end with one of the bodies whole (last rename wins), as in S3.
 * Content type and user metadata live in `<root>/.object-attributes/`, written before the body's
 * rename; a reader racing a PUT may pair the new body with the old attributes, a small
 * inconsistency S3 does not have and nothing here depends on.
 *
 * Keys the layout cannot represent are refused: a `..`, `.` or empty segment (`a//b`), a leading
 * or trailing `/` (a "folder marker" object), or a key that is a folder of another key.
 */
export function createFileObjectStore(root: string) {
  const pathOf = (bucket: string, key: string, tree = '') => {
    const segments = key.split('/');
    if (
      key.length === 0 ||
      segments.some((segment) => segment === '' || segment === '.' || segment === '..') ||
      key.includes('\\') ||
      key.includes('\0') ||
      key.endsWith(TEMP_SUFFIX)
    ) {
      throw new UnsupportedKeyError(
        `The local S3 stores keys as file paths and cannot hold "${key}" (no "..", ".", empty segments, leading or trailing "/").`,
      );
    }
    return tree === '' ? join(root, bucket, ...segments) : join(root, tree, bucket, ...segments);
  };
  const attributesPath = (bucket: string, key: string) =>
    `${pathOf(bucket, key, ATTRIBUTES_DIR)}.json`;

  const writeAtomically = async (path: string, data: Buffer | string) => {
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${randomUUID()}${TEMP_SUFFIX}`;
    try {
      await writeFile(temporary, data);
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  };

  const readAttributes = async (bucket: string, key: string): Promise<ObjectAttributes> => {
    try {
      return JSON.parse(await readFile(attributesPath(bucket, key), 'utf8')) as ObjectAttributes;
    } catch {
      return { contentType: DEFAULT_CONTENT_TYPE, userMetadata: {} };
    }
  };

  const etagOf = (body: Buffer) => `"${createHash('md5').update(body).digest('hex')}"`;

  const isMissing = (error: unknown) =>
    ['ENOENT', 'ENOTDIR', 'EISDIR'].includes((error as NodeJS.ErrnoException).code ?? '');

  return {
    async hasBucket(bucket: string): Promise<boolean> {
      return stat(join(root, bucket)).then(
        (found) => found.isDirectory(),
        () => false,
      );
    },

    async createBucket(bucket: string): Promise<void> {
      await mkdir(join(root, bucket), { recursive: true });
    },

    /** @returns the ETag; @throws UnsupportedKeyError */
    async put(
      bucket: string,
      key: string,
      body: Buffer,
      attributes: { contentType?: string; userMetadata: Record<string, string> },
    ): Promise<string> {
      const path = pathOf(bucket, key);
      await writeAtomically(
        attributesPath(bucket, key),
        JSON.stringify({
          contentType: attributes.contentType ?? DEFAULT_CONTENT_TYPE,
          userMetadata: attributes.userMetadata,
        } satisfies ObjectAttributes),
      );
      try {
        await writeAtomically(path, body);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EISDIR' || code === 'ENOTDIR' || code === 'EEXIST') {
          throw new UnsupportedKeyError(
            `The local S3 cannot hold "${key}": it or one of its folders is also used as the other (a key and a "folder" of keys).`,
          );
        }
        throw error;
      }
      return etagOf(body);
    },

    /** The object, or undefined when there is none. @throws UnsupportedKeyError */
    async get(bucket: string, key: string): Promise<StoredObject | undefined> {
      const path = pathOf(bucket, key);
      try {
        const [body, status] = await Promise.all([readFile(path), stat(path)]);
        const attributes = await readAttributes(bucket, key);
        return {
          key,
          body,
          etag: etagOf(body),
          lastModified: status.mtime,
          contentType: attributes.contentType,
          userMetadata: attributes.userMetadata,
        };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    /** Deleting a missing key is not an error, as in S3. @throws UnsupportedKeyError */
    async delete(bucket: string, key: string): Promise<void> {
      // Empty folders are left: removing them would race a PUT creating a file in them.
      await rm(pathOf(bucket, key), { force: true });
      await rm(attributesPath(bucket, key), { force: true });
    },

    /** Every object of the bucket whose key starts with `prefix`, in key (UTF-8 byte) order. */
    async list(bucket: string, prefix: string): Promise<ObjectSummary[]> {
      const bucketDir = join(root, bucket);
      const entries = await readdir(bucketDir, { recursive: true, withFileTypes: true });
      const files = entries
        .filter((entry) => entry.isFile() && !entry.name.endsWith(TEMP_SUFFIX))
        .map((entry) => join(entry.parentPath, entry.name))
        .map((path) => ({
          path,
          key: path
            .slice(bucketDir.length + 1)
            .split(sep)
            .join('/'),
        }))
        .filter(({ key }) => key.startsWith(prefix))
        .sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
      const summaries = await Promise.all(
        files.map(async ({ path, key }) => {
          try {
            const body = await readFile(path);
            const status = await stat(path);
            return [{ key, size: body.length, lastModified: status.mtime, etag: etagOf(body) }];
          } catch (error) {
            if (isMissing(error)) return []; // deleted while listing
            throw error;
          }
        }),
      );
      return summaries.flat();
    },
  };
}

export type FileObjectStore = ReturnType<typeof createFileObjectStore>;
