import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BedrockAgentClient,
  GetIngestionJobCommand,
  ResourceNotFoundException,
  StartIngestionJobCommand,
} from '@aws-sdk/client-bedrock-agent';
import {
  BedrockAgentRuntimeClient,
  type RetrievalFilter,
  RetrieveCommand,
} from '@aws-sdk/client-bedrock-agent-runtime';
import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createKnowledgeBaseRetriever } from '../../../functions/adapters/bedrock/knowledge-base-retriever.js';
import { ALL_DESK } from '../../../functions/contract/desks.js';
import {
  LOCAL_DATA_SOURCE_ID,
  LOCAL_KNOWLEDGE_BASE_ID,
  LOCAL_KNOWLEDGE_BUCKET,
} from '../../../local/bedrock/local-bedrock-defaults.js';
import {
  type LocalBedrockServer,
  startLocalBedrockServer,
} from '../../../local/bedrock/start-local-bedrock-server.js';
import { type LocalS3Server, startLocalS3Server } from '../../../local/s3/start-local-s3-server.js';
import { FIXTURE_TICKETS_DIR, LOCAL_CLIENT_CONFIG } from './local-bedrock-fixture.js';

const clientConfig = { ...LOCAL_CLIENT_CONFIG, maxAttempts: 1 } as const;
const FIXTURE_DOCUMENTS = 8;
const PREFIX = 'tickets/published/';

/** A published ticket as the publisher writes it: the document and its sidecar. */
const ticket = (issueId: string, subject: string, body: string, restricted = false) => ({
  document: `# ${subject}\n\n- Ticket: ${issueId}\n- Category: Hardware\n\n## Inquiry\n\n${body}\n`,
  sidecar: JSON.stringify({
    metadataAttributes: {
      issue_id: issueId,
      subject,
      category: 'Hardware',
      status: 'resolved',
      created_at: '2026-12-01',
      restricted,
    },
  }),
});

describe('local Bedrock endpoint: ingestion jobs over the local S3 bucket', () => {
  let root: string;
  let s3Server: LocalS3Server;
  let bedrock: LocalBedrockServer;
  let s3: S3Client;
  let agent: BedrockAgentClient;
  let agentRuntime: BedrockAgentRuntimeClient;
  const publishedDir = () => join(root, LOCAL_KNOWLEDGE_BUCKET, 'tickets', 'published');

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'local-kb-test-'));
    s3Server = await startLocalS3Server({ root, buckets: [LOCAL_KNOWLEDGE_BUCKET] });
    s3 = new S3Client({ ...clientConfig, endpoint: s3Server.endpoint, forcePathStyle: true });
    bedrock = await startLocalBedrockServer({
      ticketsDir: FIXTURE_TICKETS_DIR,
      publishedDir: publishedDir(),
      pacing: { minMs: 0, maxMs: 0 },
    });
    agent = new BedrockAgentClient({ ...clientConfig, endpoint: bedrock.agentEndpoint });
    agentRuntime = new BedrockAgentRuntimeClient({
      ...clientConfig,
      endpoint: bedrock.agentRuntimeEndpoint,
    });
  });
  afterEach(async () => {
    // Each test starts from the fixtures alone: remove what it published, then sync.
    for (const name of ['900001', '900002', '900003', '900004', '900005']) {
      for (const key of [`${PREFIX}${name}.md`, `${PREFIX}${name}.md.metadata.json`]) {
        await s3.send(new DeleteObjectCommand({ Bucket: LOCAL_KNOWLEDGE_BUCKET, Key: key }));
      }
    }
    await startJob();
  });
  afterAll(async () => {
    s3.destroy();
    agent.destroy();
    agentRuntime.destroy();
    await bedrock.close();
    await s3Server.close();
    await rm(root, { recursive: true, force: true });
  });

  const put = (key: string, body: string) =>
    s3.send(
      new PutObjectCommand({ Bucket: LOCAL_KNOWLEDGE_BUCKET, Key: `${PREFIX}${key}`, Body: body }),
    );
  const publish = async (issueId: string, written: ReturnType<typeof ticket>) => {
    await put(`${issueId}.md`, written.document);
    await put(`${issueId}.md.metadata.json`, written.sidecar);
  };
  const startJob = async () =>
    (
      await agent.send(
        new StartIngestionJobCommand({
          knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID,
          dataSourceId: LOCAL_DATA_SOURCE_ID,
        }),
      )
    ).ingestionJob;
  const retrieveIds = async (text: string, filter?: RetrievalFilter) => {
    const response = await agentRuntime.send(
      new RetrieveCommand({
        knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID,
        retrievalQuery: { text },
        retrievalConfiguration: { vectorSearchConfiguration: { numberOfResults: 20, filter } },
      }),
    );
    return (response.retrievalResults ?? []).map((result) => result.metadata?.issue_id);
  };

  it('finds a ticket written to the bucket once an ingestion job has run, not before', async () => {
    await publish(
      '900001',
      ticket(
        '900001',
        'Docking station flickers',
        'The Zephyrdock flickers on the second monitor.',
      ),
    );
    expect(await retrieveIds('Zephyrdock flickers')).not.toContain('900001');

    const job = await startJob();
    expect(job).toEqual({
      knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID,
      dataSourceId: LOCAL_DATA_SOURCE_ID,
      ingestionJobId: expect.stringMatching(/^[0-9A-Z]{10}$/),
      status: 'COMPLETE',
      statistics: {
        numberOfDocumentsScanned: FIXTURE_DOCUMENTS + 1,
        numberOfMetadataDocumentsScanned: FIXTURE_DOCUMENTS + 1,
        numberOfNewDocumentsIndexed: 1,
        numberOfModifiedDocumentsIndexed: 0,
        numberOfMetadataDocumentsModified: 0,
        numberOfDocumentsDeleted: 0,
        numberOfDocumentsFailed: 0,
        numberOfDocumentsSkipped: 0,
      },
      startedAt: expect.any(Date),
      updatedAt: expect.any(Date),
    });

    const response = await agentRuntime.send(
      new RetrieveCommand({
        knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID,
        retrievalQuery: { text: 'Zephyrdock flickers' },
      }),
    );
    expect(response.retrievalResults?.[0]).toMatchObject({
      location: {
        s3Location: { uri: `s3://${LOCAL_KNOWLEDGE_BUCKET}/tickets/published/900001.md` },
      },
      metadata: {
        issue_id: '900001',
        'x-amz-bedrock-kb-data-source-id': LOCAL_DATA_SOURCE_ID,
      },
    });

    const fetched = await agent.send(
      new GetIngestionJobCommand({
        knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID,
        dataSourceId: LOCAL_DATA_SOURCE_ID,
        ingestionJobId: job?.ingestionJobId,
      }),
    );
    expect(fetched.ingestionJob).toEqual(job);
    expect(bedrock.ingestionJobs.at(-1)).toMatchObject({
      knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID,
      dataSourceId: LOCAL_DATA_SOURCE_ID,
      job: { ingestionJobId: job?.ingestionJobId },
    });
  });

  it('counts modified and deleted documents, and drops deleted ones from retrieval', async () => {
    await publish('900002', ticket('900002', 'Projector hums', 'The Quillprojector hums loudly.'));
    await startJob();
    await put(
      '900002.md',
      ticket('900002', 'Projector hums', 'The Quillprojector hums, fixed by a fan swap.').document,
    );
    expect((await startJob())?.statistics).toMatchObject({
      numberOfNewDocumentsIndexed: 0,
      numberOfModifiedDocumentsIndexed: 1,
      numberOfDocumentsDeleted: 0,
    });
    expect(await retrieveIds('Quillprojector fan swap')).toContain('900002');

    await s3.send(
      new DeleteObjectCommand({ Bucket: LOCAL_KNOWLEDGE_BUCKET, Key: `${PREFIX}900002.md` }),
    );
    await s3.send(
      new DeleteObjectCommand({
        Bucket: LOCAL_KNOWLEDGE_BUCKET,
        Key: `${PREFIX}900002.md.metadata.json`,
      }),
    );
    expect((await startJob())?.statistics).toMatchObject({
      numberOfDocumentsScanned: FIXTURE_DOCUMENTS,
      numberOfDocumentsDeleted: 1,
    });
    expect(await retrieveIds('Quillprojector')).not.toContain('900002');
  });

  it('never retrieves a restricted published ticket through the retriever the function uses', async () => {
    await publish(
      '900003',
      ticket('900003', 'Board laptop wipe', 'Wipe the Saffronboard laptop remotely.', true),
    );
    expect((await startJob())?.statistics?.numberOfNewDocumentsIndexed).toBe(1);
    const retriever = createKnowledgeBaseRetriever({
      client: agentRuntime,
      knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID,
    });
    const issueIds = (tickets: readonly { issueId: string }[]) =>
      tickets.map((found) => found.issueId);
    const searched = await retriever.search('Saffronboard laptop wipe', {
      limit: 8,
      desks: [ALL_DESK],
    });
    expect(issueIds(searched)).not.toContain('900003');
    expect(
      issueIds(await retriever.fetchByIssueIds(['900003'], { limit: 8, desks: [ALL_DESK] })),
    ).toEqual([]);
    // It is indexed, with its attribute: only the restriction keeps it out.
    const restricted = await retrieveIds('Saffronboard', {
      equals: { key: 'restricted', value: true },
    });
    expect(restricted[0]).toBe('900003');
  });

  it('counts a document without its sidecar, or with a broken one, as failed and does not index it', async () => {
    await put(
      '900004.md',
      ticket('900004', 'Lonely doc', 'The Ochremouse has no sidecar.').document,
    );
    await put(
      '900005.md',
      ticket('900005', 'Broken sidecar', 'The Umberkeyboard is broken.').document,
    );
    await put('900005.md.metadata.json', '{"metadataAttributes": {"restricted": tru');
    const job = await startJob();
    expect(job?.statistics).toMatchObject({
      numberOfDocumentsScanned: FIXTURE_DOCUMENTS + 2,
      numberOfMetadataDocumentsScanned: FIXTURE_DOCUMENTS + 1,
      numberOfNewDocumentsIndexed: 0,
      numberOfDocumentsFailed: 2,
    });
    expect(job?.failureReasons).toEqual([
      expect.stringMatching(/900004\.md: no metadata file 900004\.md\.metadata\.json/),
      expect.stringMatching(/900005\.md: 900005\.md\.metadata\.json is not valid JSON/),
    ]);
    // Not even a filter-less Retrieve finds them.
    expect(await retrieveIds('Ochremouse Umberkeyboard')).toEqual([]);
  });

  it('loads tickets published before it started (a restart of npm start)', async () => {
    await publish(
      '900001',
      ticket('900001', 'Docking station flickers', 'The Zephyrdock flickers.'),
    );
    const restarted = await startLocalBedrockServer({
      ticketsDir: FIXTURE_TICKETS_DIR,
      publishedDir: publishedDir(),
    });
    const client = new BedrockAgentRuntimeClient({
      ...clientConfig,
      endpoint: restarted.agentRuntimeEndpoint,
    });
    try {
      const response = await client.send(
        new RetrieveCommand({
          knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID,
          retrievalQuery: { text: 'Zephyrdock' },
        }),
      );
      expect(response.retrievalResults?.map((result) => result.metadata?.issue_id)).toEqual([
        '900001',
      ]);
    } finally {
      client.destroy();
      await restarted.close();
    }
  });

  it('answers ResourceNotFoundException for another Knowledge Base, data source or job', async () => {
    const start = (knowledgeBaseId: string, dataSourceId: string) =>
      agent.send(new StartIngestionJobCommand({ knowledgeBaseId, dataSourceId }));
    await expect(start('OTHERKB001', LOCAL_DATA_SOURCE_ID)).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
    await expect(start(LOCAL_KNOWLEDGE_BASE_ID, 'OTHERDS001')).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
    await expect(
      agent.send(
        new GetIngestionJobCommand({
          knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID,
          dataSourceId: LOCAL_DATA_SOURCE_ID,
          ingestionJobId: 'NOSUCHJOB1',
        }),
      ),
    ).rejects.toBeInstanceOf(ResourceNotFoundException);
  });

  it('returns the same job for a repeated clientToken', async () => {
    const start = () =>
      agent.send(
        new StartIngestionJobCommand({
          knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID,
          dataSourceId: LOCAL_DATA_SOURCE_ID,
          clientToken: 'publish-900001-aaaaaaaaaaaaaaaaaaaaaa',
        }),
      );
    const first = await start();
    const second = await start();
    expect(second.ingestionJob?.ingestionJobId).toBe(first.ingestionJob?.ingestionJobId);
  });
});
