import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BedrockAgentClient, ConflictException } from '@aws-sdk/client-bedrock-agent';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKnowledgeBaseDocuments } from '../../../functions/adapters/bedrock/knowledge-base-documents.js';
import { renderTicketDocuments } from '../../../functions/knowledge/ticket-document.js';
import { type LocalS3Server, startLocalS3Server } from '../../../local/s3/start-local-s3-server.js';

/**
 * The document-bucket adapter through the real S3Client against the local S3 endpoint: the
 * sidecar is written before the document and removed after it, and a sync refused because one
 * is running is retried, then reported as pending.
 */

let s3Server: LocalS3Server;
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'kb-documents-'));
  s3Server = await startLocalS3Server({ root, buckets: ['docs'] });
});
afterAll(async () => {
  await s3Server?.close();
  await rm(root, { recursive: true, force: true });
});

const files = renderTicketDocuments(
  '900123',
  { subject: 'S', category: 'VPN', inquiry: 'I', resolution: ['R'], restricted: true, desk: 'hr' },
  {
    conversationId: 'C',
    inquiryId: 'I',
    author: { tenantId: 't', userId: 'u' },
    publishedAt: new Date('2026-12-01T00:00:00Z'),
  },
);

function recordingS3() {
  const client = new S3Client({
    endpoint: s3Server.endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  const calls: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Key?: string };
      calls.push(`${String(context.commandName).replace(/ObjectCommand$/, '')} ${input.Key}`);
      return next(args);
    },
    { step: 'initialize', name: 'recordCalls' },
  );
  return { client, calls };
}

/** An agent whose StartIngestionJob answers ConflictException `conflicts` times, then succeeds. */
function agentWithConflicts(conflicts: number) {
  let calls = 0;
  const agent = {
    async send() {
      calls++;
      if (calls <= conflicts)
        throw new ConflictException({ message: 'a job is running', $metadata: {} });
      return { ingestionJob: { status: 'STARTING' } };
    },
  } as unknown as BedrockAgentClient;
  return { agent, calls: () => calls };
}

const options = (s3: S3Client, agent: BedrockAgentClient) => ({
  s3,
  agent,
  bucket: 'docs',
  keyPrefix: 'tickets/published/',
  knowledgeBaseId: 'KB',
  dataSourceId: 'DS',
  syncRetryDelaysMs: [1, 1, 1],
});

describe('the Knowledge Base documents adapter', () => {
  it('writes the sidecar first and removes it last', async () => {
    const { client, calls } = recordingS3();
    const documents = createKnowledgeBaseDocuments(options(client, agentWithConflicts(0).agent));
    await documents.write(files);
    expect(await readdir(join(root, 'docs', 'tickets', 'published'))).toEqual([
      '900123.md',
      '900123.md.metadata.json',
    ]);
    await documents.remove(files);
    expect(await readdir(join(root, 'docs', 'tickets', 'published'))).toEqual([]);
    expect(calls).toEqual([
      'Put tickets/published/900123.md.metadata.json',
      'Put tickets/published/900123.md',
      'Delete tickets/published/900123.md',
      'Delete tickets/published/900123.md.metadata.json',
    ]);
  });

  it('retries a sync refused while another runs, then starts it', async () => {
    const { agent, calls } = agentWithConflicts(2);
    const documents = createKnowledgeBaseDocuments(options(recordingS3().client, agent));
    expect(await documents.startSync()).toBe('started');
    expect(calls()).toBe(3);
  });

  it('reports pending when the running sync does not finish within the retries', async () => {
    const { agent, calls } = agentWithConflicts(10);
    const documents = createKnowledgeBaseDocuments(options(recordingS3().client, agent));
    expect(await documents.startSync()).toBe('pending');
    expect(calls()).toBe(4);
  });

  it('fails a write to a bucket that does not exist', async () => {
    const documents = createKnowledgeBaseDocuments({
      ...options(recordingS3().client, agentWithConflicts(0).agent),
      bucket: 'missing',
    });
    await expect(documents.write(files)).rejects.toMatchObject({ name: 'NoSuchBucket' });
  });

  it('reads the category files uploads left outside the ticket prefix, ignoring a malformed one', async () => {
    const documents = createKnowledgeBaseDocuments(
      options(recordingS3().client, agentWithConflicts(0).agent),
    );
    await expect(documents.uploadedCategories()).resolves.toEqual([]);
    const folder = join(root, 'docs', 'ticket-categories');
    await mkdir(folder, { recursive: true });
    await writeFile(
      join(folder, 'imported-servicenow.json'),
      JSON.stringify(['network', 'inquiry']),
    );
    await writeFile(join(folder, 'imported-jira.json'), JSON.stringify(['Hardware', 7]));
    await writeFile(join(folder, 'imported-zendesk.json'), '{ not json');
    await writeFile(join(folder, 'notes.txt'), '["ignored"]');
    const categories = await documents.uploadedCategories();
    expect([...categories].sort()).toEqual(['Hardware', 'inquiry', 'network']);
  });
});
