import {
  BedrockAgentRuntimeClient,
  type KnowledgeBaseRetrievalResult,
  type RetrievalFilter,
  RetrieveCommand,
} from '@aws-sdk/client-bedrock-agent-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKnowledgeBaseRetriever,
  rerankCandidates,
  toRetrievedTicket,
} from '../../../functions/adapters/bedrock/knowledge-base-retriever.js';
import {
  type LocalBedrockServer,
  startLocalBedrockServer,
} from '../../../local/bedrock/start-local-bedrock-server.js';

let bedrock: LocalBedrockServer;
let client: BedrockAgentRuntimeClient;
beforeAll(async () => {
  // The real sample corpus: it contains restricted tickets that share words with normal ones.
  bedrock = await startLocalBedrockServer({ pacing: { minMs: 0, maxMs: 0 } });
  client = new BedrockAgentRuntimeClient({
    endpoint: bedrock.agentRuntimeEndpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
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
    const tickets = await retriever.search('PCにログインできない メール', { limit: 20 });
    expect(tickets.length).toBeGreaterThan(3);
    expect(tickets.every((ticket) => !ticket.restricted)).toBe(true);
    expect(bedrock.retrieveRequests.at(-1)?.body).toMatchObject({
      retrievalQuery: { text: 'PCにログインできない メール' },
      retrievalConfiguration: {
        vectorSearchConfiguration: {
          numberOfResults: 20,
          overrideSearchType: 'HYBRID',
          filter: { notEquals: { key: 'restricted', value: true } },
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
    await expect(retriever.search('VPNがつながらない', { limit: 8 })).rejects.toMatchObject({
      name: 'ValidationException',
    });
    expect(bedrock.retrieveRequests.at(-1)?.body.retrievalConfiguration).toEqual({
      vectorSearchConfiguration: {
        numberOfResults: 40,
        overrideSearchType: 'HYBRID',
        filter: { notEquals: { key: 'restricted', value: true } },
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
    await retriever.fetchByIssueIds(['1234'], { limit: 8 });
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
    const tickets = await retriever.fetchByIssueIds(['1234', '1015'], { limit: 8 });
    expect([...new Set(tickets.map((ticket) => ticket.issueId))]).toEqual(['1234']);
    expect(bedrock.retrieveRequests.at(-1)?.body).toMatchObject({
      retrievalConfiguration: {
        vectorSearchConfiguration: {
          filter: {
            andAll: [
              { in: { key: 'issue_id', value: ['1234', '1015'] } },
              { notEquals: { key: 'restricted', value: true } },
            ],
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
    const tickets = await s3VectorsRetriever().search('PCにログインできない メール', { limit: 20 });
    expect(tickets.length).toBeGreaterThan(3);
    expect(tickets.every((ticket) => !ticket.restricted)).toBe(true);
    expect(s3Vectors.retrieveRequests.at(-1)?.body.retrievalConfiguration).toEqual({
      vectorSearchConfiguration: {
        numberOfResults: 20,
        overrideSearchType: 'SEMANTIC',
        filter: { notEquals: { key: 'restricted', value: true } },
      },
    });
  });

  it('fetches tickets by number with in + andAll, never a restricted one', async () => {
    const tickets = await s3VectorsRetriever().fetchByIssueIds(['1234', '1015'], { limit: 8 });
    expect([...new Set(tickets.map((ticket) => ticket.issueId))]).toEqual(['1234']);
    expect(
      s3Vectors.retrieveRequests.at(-1)?.body.retrievalConfiguration?.vectorSearchConfiguration,
    ).toMatchObject({
      overrideSearchType: 'SEMANTIC',
      filter: {
        andAll: [
          { in: { key: 'issue_id', value: ['1234', '1015'] } },
          { notEquals: { key: 'restricted', value: true } },
        ],
      },
    });
  });

  it('is refused HYBRID by an S3 Vectors Knowledge Base, so the retriever never asks for it', async () => {
    // What a retriever configured for OpenSearch would send: AWS (and the endpoint) refuse it.
    const openSearchRetriever = createKnowledgeBaseRetriever({
      client: s3VectorsClient,
      knowledgeBaseId: s3Vectors.knowledgeBaseId,
    });
    await expect(openSearchRetriever.search('VPN', { limit: 5 })).rejects.toMatchObject({
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
