import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3AttachmentStore } from '../../../functions/adapters/s3/s3-attachment-store.js';
import { type LocalS3Server, startLocalS3Server } from '../../../local/s3/start-local-s3-server.js';

// The S3 adapter against the local S3 that `npm start` runs: keys per owner, the description in
// object metadata (a Japanese name included), and deletes.

let server: LocalS3Server;
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'attachments-s3-'));
  server = await startLocalS3Server({ root, buckets: ['attachments-test'] });
});
afterAll(async () => {
  await server?.close();
  await rm(root, { recursive: true, force: true });
});

const store = () =>
  createS3AttachmentStore({
    s3: new S3Client({
      endpoint: server.endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
    bucket: 'attachments-test',
    keyPrefix: 'attachments/',
  });

describe('createS3AttachmentStore', () => {
  const alice = { tenantId: 'local', userId: 'alice@example.co.jp' };
  const mallory = { tenantId: 'local', userId: 'mallory' };
  const ref = {
    id: '01JAAAAAAAAAAAAAAAAAAAAAAB',
    type: 'text/plain' as const,
    size: 6,
    name: 'ログ 1.txt',
  };

  it('stores, describes and reads an attachment for its owner only, and deletes it', async () => {
    const attachments = store();
    await attachments.put(alice, { ref, bytes: Buffer.from('エラー'), textEncoding: 'shift_jis' });
    expect(await attachments.describe(alice, ref.id)).toEqual(ref);
    const stored = await attachments.get(alice, ref.id);
    expect(Buffer.from(stored?.bytes ?? []).toString('utf8')).toBe('エラー');
    expect(stored?.textEncoding).toBe('shift_jis');
    expect(await attachments.get(mallory, ref.id)).toBeUndefined();
    expect(await attachments.describe(mallory, ref.id)).toBeUndefined();
    await attachments.remove(alice, [ref.id]);
    expect(await attachments.get(alice, ref.id)).toBeUndefined();
  });
});
