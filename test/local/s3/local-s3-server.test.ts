import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchBucket,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalS3Server, startLocalS3Server } from '../../../local/s3/start-local-s3-server.js';

const BUCKET = 'local-knowledge-documents';

describe('local S3 endpoint', () => {
  let root: string;
  let server: LocalS3Server;
  let s3: S3Client;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'local-s3-test-'));
    server = await startLocalS3Server({ root, buckets: [BUCKET] });
    s3 = new S3Client({
      endpoint: server.endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      maxAttempts: 1,
    });
  });
  afterAll(async () => {
    s3.destroy();
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  const text = async (key: string) => {
    const object = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return object.Body?.transformToString();
  };

  it('stores a PUT object as a file under <root>/<bucket>/<key> and returns its MD5 ETag', async () => {
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'tickets/published/900001.md',
        Body: '# VPN 証明書の更新\n',
        ContentType: 'text/markdown; charset=utf-8',
        Metadata: { source: 'test' },
      }),
    );
    expect(put.ETag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(await readFile(join(root, BUCKET, 'tickets', 'published', '900001.md'), 'utf8')).toBe(
      '# VPN 証明書の更新\n',
    );

    const got = await s3.send(
      new GetObjectCommand({ Bucket: BUCKET, Key: 'tickets/published/900001.md' }),
    );
    expect(await got.Body?.transformToString()).toBe('# VPN 証明書の更新\n');
    expect(got.ETag).toBe(put.ETag);
    expect(got.ContentType).toBe('text/markdown; charset=utf-8');
    expect(got.Metadata).toEqual({ source: 'test' });

    const head = await s3.send(
      new HeadObjectCommand({ Bucket: BUCKET, Key: 'tickets/published/900001.md' }),
    );
    expect(head.ContentLength).toBe(Buffer.byteLength('# VPN 証明書の更新\n'));
    expect(head.ETag).toBe(put.ETag);
    expect(head.LastModified).toBeInstanceOf(Date);
  });

  it('replaces an object on a second PUT', async () => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'replace.md', Body: 'first' }));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'replace.md', Body: 'second' }));
    expect(await text('replace.md')).toBe('second');
  });

  it('decodes an aws-chunked stream body and verifies its CRC32 trailer', async () => {
    const parts = ['ストリーム', ' body ', 'x'.repeat(70_000)].map((part) => Buffer.from(part));
    const length = parts.reduce((sum, part) => sum + part.length, 0);
    await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'streams/a b/ü.md',
        Body: Readable.from(parts),
        ContentLength: length,
      }),
    );
    expect(await text('streams/a b/ü.md')).toBe(Buffer.concat(parts).toString());
  });

  it('answers BadDigest when the CRC32 does not match the body', async () => {
    const { status, body } = await rawPut(server.endpoint, `/${BUCKET}/bad.md`, 'hello', {
      'x-amz-checksum-crc32': 'AAAAAA==',
    });
    expect(status).toBe(400);
    expect(body).toContain('<Code>BadDigest</Code>');
    const chunked = await rawPut(
      server.endpoint,
      `/${BUCKET}/bad-chunked.md`,
      '5\r\nhello\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n',
      { 'content-encoding': 'aws-chunked', 'x-amz-decoded-content-length': '5' },
    );
    expect(chunked.status).toBe(400);
    expect(chunked.body).toContain('<Code>BadDigest</Code>');
    await expect(
      s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'bad-chunked.md' })),
    ).rejects.toBeInstanceOf(NotFound);
  });

  it('raises NoSuchKey for GET and NotFound for HEAD of a missing key', async () => {
    const missing = s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'missing.md' }));
    await expect(missing).rejects.toBeInstanceOf(NoSuchKey);
    await expect(missing).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
    await expect(
      s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'missing.md' })),
    ).rejects.toBeInstanceOf(NotFound);
  });

  it('raises NoSuchBucket for a bucket it was not given', async () => {
    await expect(
      s3.send(new PutObjectCommand({ Bucket: 'other-bucket', Key: 'a.md', Body: 'x' })),
    ).rejects.toBeInstanceOf(NoSuchBucket);
    await expect(
      s3.send(new ListObjectsV2Command({ Bucket: 'other-bucket' })),
    ).rejects.toBeInstanceOf(NoSuchBucket);
  });

  it('deletes with 204, also a key that does not exist, as S3 does', async () => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'gone/soon.md', Body: 'x' }));
    const deleted = await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'gone/soon.md' }));
    expect(deleted.$metadata.httpStatusCode).toBe(204);
    await expect(
      s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'gone/soon.md' })),
    ).rejects.toBeInstanceOf(NoSuchKey);
    const again = await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'gone/soon.md' }));
    expect(again.$metadata.httpStatusCode).toBe(204);
  });

  it('refuses keys with a ".." segment instead of writing outside the bucket', async () => {
    const outside = s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'tickets/../../escape.md', Body: 'x' }),
    );
    await expect(outside).rejects.toBeInstanceOf(S3ServiceException);
    await expect(outside).rejects.toMatchObject({ name: 'InvalidArgument' });
    expect(await readdir(root)).not.toContain('escape.md');
  });

  it('lists with prefix, delimiter and pagination (ListObjectsV2)', async () => {
    for (const key of ['list/a/1.md', 'list/a/2.md', 'list/b.md', 'list/c.md', 'listing.md']) {
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: key }));
    }
    const all = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'list/' }));
    expect(all.Contents?.map((object) => object.Key)).toEqual([
      'list/a/1.md',
      'list/a/2.md',
      'list/b.md',
      'list/c.md',
    ]);
    expect(all.Contents?.[0]).toMatchObject({
      Size: 'list/a/1.md'.length,
      ETag: expect.any(String),
    });
    expect(all.KeyCount).toBe(4);

    const folders = await s3.send(
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'list/', Delimiter: '/' }),
    );
    expect(folders.CommonPrefixes?.map((prefix) => prefix.Prefix)).toEqual(['list/a/']);
    expect(folders.Contents?.map((object) => object.Key)).toEqual(['list/b.md', 'list/c.md']);

    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({
          Bucket: BUCKET,
          Prefix: 'list/',
          MaxKeys: 3,
          ContinuationToken: token,
        }),
      );
      keys.push(...(page.Contents ?? []).map((object) => object.Key ?? ''));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    expect(keys).toEqual(['list/a/1.md', 'list/a/2.md', 'list/b.md', 'list/c.md']);
  });

  it('never shows a reader half a document while PUTs of the same key race', async () => {
    const bodies = ['A', 'B', 'C', 'D'].map((letter) => letter.repeat(512 * 1024));
    const reads: Promise<string | undefined>[] = [];
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'race.md', Body: bodies[0] }));
    const writes = bodies.map((body) =>
      s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'race.md', Body: body })),
    );
    const path = join(root, BUCKET, 'race.md');
    for (let index = 0; index < 20; index += 1) reads.push(readFile(path, 'utf8'));
    reads.push(text('race.md'));
    await Promise.all(writes);
    for (const read of await Promise.all(reads)) expect(bodies).toContain(read);
    expect(bodies).toContain(await text('race.md'));
    // No temporary file is left behind or listed.
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'race' }));
    expect(listed.Contents?.map((object) => object.Key)).toEqual(['race.md']);
  });

  it('reads files placed in the bucket folder by other means as objects', async () => {
    await writeFile(join(root, BUCKET, 'seeded.md'), 'seeded');
    expect(await text('seeded.md')).toBe('seeded');
  });
});

/** A PUT with hand-made headers and body, for what the SDK never sends (a wrong checksum). */
function rawPut(
  endpoint: string,
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${endpoint}${path}`, { method: 'PUT', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() }),
      );
    });
    request.on('error', reject);
    request.end(body);
  });
}
