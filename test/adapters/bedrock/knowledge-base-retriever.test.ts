import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BedrockAgentRuntimeClient,
  type KnowledgeBaseRetrievalResult,
  type RetrievalFilter,
  RetrieveCommand,
} from '@aws-sdk/client-bedrock-agent-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bedrockTransport } from '../../../functions/adapters/bedrock/bedrock-transport.js';
import {
  createKnowledgeBaseRetriever,
  rerankCandidates,
  toRetrievedTicket,
} from '../../../functions/adapters/bedrock/knowledge-base-retriever.js';
import type { VectorStore } from '../../../functions/adapters/bedrock/vector-store-search.js';
import { ALL_DESK } from '../../../functions/contract/desks.js';
import {
  type LocalBedrockServer,
  startLocalBedrockServer,
} from '../../../local/bedrock/start-local-bedrock-server.js';

/** The filter conditions every retrieval of a caller whose only desk is `all` carries. */
const RETRIEVABLE_BY_ALL = [
  { notEquals: { key: 'restricted', value: true } },
  { in: { key: 'desk', value: [ALL_DESK] } },
];

let bedrock: LocalBedrockServer;
let client: BedrockAgentRuntimeClient;
beforeAll(async () => {
  // The real sample corpus: it contains restricted tickets that share words with normal ones.
  bedrock = await startLocalBedrockServer({ pacing: { minMs: 0, maxMs: 0 } });
  client = new BedrockAgentRuntimeClient({
    endpoint: bedrock.agentRuntimeEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    requestHandler: bedrockTransport(),
  });
});
afterAll(async () => {
  client?.destroy();
  await bedrock?.close();
});

describe('createKnowledgeBaseRetriever (real SDK client, local Retrieve endpoint)', () => {
  it('searches with hybrid search and a filter that excludes restricted tickets', async () => {
    const retriever = createKnowledgeBaseRetriever({
      client,
      knowledgeBaseId: bedrock.knowledgeBaseId,
    });
    const tickets = await retriever.search('PCにログインできない メール', {
      limit: 20,
      desks: [ALL_DESK],
    });
    expect(tickets.length).toBeGreaterThan(3);
    expect(tickets.every((ticket) => !ticket.restricted)).toBe(true);
    expect(bedrock.retrieveRequests.at(-1)?.body).toMatchObject({
      retrievalQuery: { text: 'PCにログインできない メール' },
      retrievalConfiguration: {
        vectorSearchConfiguration: {
          numberOfResults: 20,
          overrideSearchType: 'HYBRID',
          filter: { andAll: RETRIEVABLE_BY_ALL },
        },
      },
    });
    const first = tickets[0];
    expect(first).toMatchObject({
      issueId: expect.stringMatching(/^\d+$/),
      subject: expect.any(String),
      score: expect.any(Number),
    });
    expect(first?.uri).toMatch(/^s3:\/\//);
  });

  it('asks Retrieve to rerank five times the candidates down to the limit when a reranker is set', async () => {
    const rerankingModelArn = 'arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0';
    const retriever = createKnowledgeBaseRetriever({
      client,
      knowledgeBaseId: bedrock.knowledgeBaseId,
      rerankingModelArn,
    });
    // The local endpoint has no reranker and says so; the request is what AWS would receive.
    await expect(
      retriever.search('VPNがつながらない', { limit: 8, desks: [ALL_DESK] }),
    ).rejects.toMatchObject({
      name: 'ValidationException',
    });
    expect(bedrock.retrieveRequests.at(-1)?.body.retrievalConfiguration).toEqual({
      vectorSearchConfiguration: {
        numberOfResults: 40,
        overrideSearchType: 'HYBRID',
        filter: { andAll: RETRIEVABLE_BY_ALL },
        rerankingConfiguration: {
          type: 'BEDROCK_RERANKING_MODEL',
          bedrockRerankingConfiguration: {
            modelConfiguration: { modelArn: rerankingModelArn },
            numberOfRerankedResults: 8,
          },
        },
      },
    });
    expect(rerankCandidates(30)).toBe(100); // Retrieve's maximum
    expect(rerankCandidates(1)).toBe(5);

    // Fetching by issue id has no query to rank against: never reranked.
    await retriever.fetchByIssueIds(['1234'], { limit: 8, desks: [ALL_DESK] });
    expect(
      bedrock.retrieveRequests.at(-1)?.body.retrievalConfiguration?.vectorSearchConfiguration,
    ).not.toHaveProperty('rerankingConfiguration');
  });

  it('fetches referenced tickets by issue id, never a restricted one', async () => {
    const retriever = createKnowledgeBaseRetriever({
      client,
      knowledgeBaseId: bedrock.knowledgeBaseId,
    });
    // 1015 is a restricted ticket in the sample corpus.
    const tickets = await retriever.fetchByIssueIds(['1234', '1015'], {
      limit: 8,
      desks: [ALL_DESK],
    });
    expect([...new Set(tickets.map((ticket) => ticket.issueId))]).toEqual(['1234']);
    expect(bedrock.retrieveRequests.at(-1)?.body).toMatchObject({
      retrievalConfiguration: {
        vectorSearchConfiguration: {
          filter: {
            andAll: [{ in: { key: 'issue_id', value: ['1234', '1015'] } }, ...RETRIEVABLE_BY_ALL],
          },
        },
      },
    });
  });
});

describe('createKnowledgeBaseRetriever on an S3 Vectors Knowledge Base (local endpoint playing one)', () => {
  let s3Vectors: LocalBedrockServer;
  let s3VectorsClient: BedrockAgentRuntimeClient;
  beforeAll(async () => {
    s3Vectors = await startLocalBedrockServer({
      pacing: { minMs: 0, maxMs: 0 },
      vectorStore: 's3-vectors',
    });
    s3VectorsClient = new BedrockAgentRuntimeClient({
      endpoint: s3Vectors.agentRuntimeEndpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      requestHandler: bedrockTransport(),
    });
  });
  afterAll(async () => {
    s3VectorsClient?.destroy();
    await s3Vectors?.close();
  });
  const s3VectorsRetriever = () =>
    createKnowledgeBaseRetriever({
      client: s3VectorsClient,
      knowledgeBaseId: s3Vectors.knowledgeBaseId,
      vectorStore: 's3-vectors',
    });

  it('searches SEMANTIC with the restricted filter S3 Vectors supports', async () => {
    const tickets = await s3VectorsRetriever().search('PCにログインできない メール', {
      limit: 20,
      desks: [ALL_DESK],
    });
    expect(tickets.length).toBeGreaterThan(3);
    expect(tickets.every((ticket) => !ticket.restricted)).toBe(true);
    expect(s3Vectors.retrieveRequests.at(-1)?.body.retrievalConfiguration).toEqual({
      vectorSearchConfiguration: {
        numberOfResults: 20,
        overrideSearchType: 'SEMANTIC',
        filter: { andAll: RETRIEVABLE_BY_ALL },
      },
    });
  });

  it('fetches tickets by number with in + andAll, never a restricted one', async () => {
    const tickets = await s3VectorsRetriever().fetchByIssueIds(['1234', '1015'], {
      limit: 8,
      desks: [ALL_DESK],
    });
    expect([...new Set(tickets.map((ticket) => ticket.issueId))]).toEqual(['1234']);
    expect(
      s3Vectors.retrieveRequests.at(-1)?.body.retrievalConfiguration?.vectorSearchConfiguration,
    ).toMatchObject({
      overrideSearchType: 'SEMANTIC',
      filter: {
        andAll: [{ in: { key: 'issue_id', value: ['1234', '1015'] } }, ...RETRIEVABLE_BY_ALL],
      },
    });
  });

  it('is refused HYBRID by an S3 Vectors Knowledge Base, so the retriever never asks for it', async () => {
    // What a retriever configured for OpenSearch would send: AWS (and the endpoint) refuse it.
    const openSearchRetriever = createKnowledgeBaseRetriever({
      client: s3VectorsClient,
      knowledgeBaseId: s3Vectors.knowledgeBaseId,
    });
    await expect(
      openSearchRetriever.search('VPN', { limit: 5, desks: [ALL_DESK] }),
    ).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/HYBRID search is not supported/),
    });
    expect(() =>
      createKnowledgeBaseRetriever({
        client: s3VectorsClient,
        knowledgeBaseId: s3Vectors.knowledgeBaseId,
        vectorStore: 's3-vectors',
        searchType: 'HYBRID',
      }),
    ).toThrow(/s3-vectors is semantic only/);
  });

  it('plays S3 Vectors: refuses a filter operator it lacks, accepts the ones the retriever uses', async () => {
    const retrieve = (filter: RetrievalFilter) =>
      s3VectorsClient.send(
        new RetrieveCommand({
          knowledgeBaseId: s3Vectors.knowledgeBaseId,
          retrievalQuery: { text: 'VPN' },
          retrievalConfiguration: {
            vectorSearchConfiguration: { overrideSearchType: 'SEMANTIC', filter },
          },
        }),
      );
    await expect(
      retrieve({
        andAll: [
          { startsWith: { key: 'subject', value: 'VPN' } },
          { equals: { key: 'restricted', value: false } },
        ],
      }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/startsWith is not supported/) });
    await expect(
      retrieve({ notEquals: { key: 'restricted', value: true } }),
    ).resolves.toBeDefined();
  });
});

describe.each<VectorStore>(['opensearch-serverless', 's3-vectors'])(
  'desks on %s (ADR 0029): the Knowledge Base filter, as the local endpoint plays it',
  (vectorStore) => {
    let folder: string;
    let server: LocalBedrockServer;
    let deskClient: BedrockAgentRuntimeClient;
    /** A ticket about leave, of `desk` (no key at all when undefined: a sidecar from before desks). */
    const writeTicket = (issueId: string, desk: string | undefined) => {
      writeFileSync(
        join(folder, `${issueId}.md`),
        `# Leave request ${issueId}\n\nHoliday leave form.\n`,
      );
      writeFileSync(
        join(folder, `${issueId}.md.metadata.json`),
        JSON.stringify({
          metadataAttributes: {
            issue_id: issueId,
            subject: `Leave request ${issueId}`,
            restricted: false,
            ...(desk === undefined ? {} : { desk }),
          },
        }),
      );
    };
    beforeAll(async () => {
      folder = mkdtempSync(join(tmpdir(), 'desk-tickets-'));
      writeTicket('2001', 'hr');
      writeTicket('2002', ALL_DESK);
      writeTicket('2003', undefined);
      server = await startLocalBedrockServer({
        pacing: { minMs: 0, maxMs: 0 },
        ticketsDir: folder,
        vectorStore,
      });
      deskClient = new BedrockAgentRuntimeClient({
        endpoint: server.agentRuntimeEndpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        requestHandler: bedrockTransport(),
      });
    });
    afterAll(async () => {
      deskClient?.destroy();
      await server?.close();
      rmSync(folder, { recursive: true, force: true });
    });
    const retriever = () =>
      createKnowledgeBaseRetriever({
        client: deskClient,
        knowledgeBaseId: server.knowledgeBaseId,
        vectorStore,
      });
    const idsOf = (tickets: readonly { issueId: string }[]) =>
      [...new Set(tickets.map((ticket) => ticket.issueId))].sort();

    it('lets HR staff retrieve the HR ticket and never IT staff, by search and by number', async () => {
      const hr = [ALL_DESK, 'hr'];
      const itStaff = [ALL_DESK, 'it'];
      expect(idsOf(await retriever().search('leave request', { limit: 10, desks: hr }))).toEqual([
        '2001',
        '2002',
      ]);
      expect(
        idsOf(await retriever().search('leave request', { limit: 10, desks: itStaff })),
      ).toEqual(['2002']);
      expect(server.retrieveRequests.at(-1)?.body.retrievalConfiguration).toMatchObject({
        vectorSearchConfiguration: {
          filter: {
            andAll: [
              { notEquals: { key: 'restricted', value: true } },
              { in: { key: 'desk', value: itStaff } },
            ],
          },
        },
      });
      expect(
        idsOf(await retriever().fetchByIssueIds(['2001'], { limit: 4, desks: itStaff })),
      ).toEqual([]);
      expect(idsOf(await retriever().fetchByIssueIds(['2001'], { limit: 4, desks: hr }))).toEqual([
        '2001',
      ]);
    });

    it('keeps a ticket whose sidecar has no desk from everyone, as a missing key matches no `in`', async () => {
      const everyDesk = [ALL_DESK, 'hr', 'it'];
      const found = await retriever().search('leave request', { limit: 10, desks: everyDesk });
      expect(idsOf(found)).not.toContain('2003');
    });

    it('reads the desk from the metadata, absent when the sidecar has none', () => {
      const tickets = [
        toRetrievedTicket({
          content: { text: 't', type: 'TEXT' },
          metadata: { issue_id: '1', desk: 'hr' },
        }),
        toRetrievedTicket({ content: { text: 't', type: 'TEXT' }, metadata: { issue_id: '2' } }),
      ];
      expect(tickets.map((ticket) => ticket?.desk)).toEqual(['hr', undefined]);
    });
  },
);

type DocumentType = NonNullable<KnowledgeBaseRetrievalResult['metadata']>[string];

describe('toRetrievedTicket', () => {
  const result = (metadata: Record<string, DocumentType>) => ({
    content: { text: 't', type: 'TEXT' as const },
    score: 0.5,
    metadata,
  });

  it.each([
    [true, true],
    ['true', true],
    ['TRUE', true],
    ['yes', true],
    [false, false],
    ['false', false],
    [undefined, false],
  ])('reads restricted=%s as %s', (restricted, expected) => {
    expect(
      toRetrievedTicket(result({ issue_id: '1', restricted: restricted as DocumentType }))
        ?.restricted,
    ).toBe(expected);
  });

  it('drops a chunk without an issue id', () => {
    expect(toRetrievedTicket(result({ subject: 'x' }))).toBeUndefined();
  });

  it('accepts a numeric issue id', () => {
    expect(toRetrievedTicket(result({ issue_id: 1234 }))?.issueId).toBe('1234');
  });
});
