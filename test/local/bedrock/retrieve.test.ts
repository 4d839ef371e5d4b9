import { type RetrievalFilter, RetrieveCommand } from '@aws-sdk/client-bedrock-agent-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_KNOWLEDGE_BASE_ID } from '../../../local/bedrock/local-bedrock-defaults.js';
import { startFixtureServer } from './local-bedrock-fixture.js';

describe('local Bedrock endpoint: Retrieve', () => {
  let fixture: Awaited<ReturnType<typeof startFixtureServer>>;
  beforeAll(async () => {
    fixture = await startFixtureServer();
  });
  afterAll(() => fixture.close());

  const retrieve = async (text: string, numberOfResults?: number, filter?: RetrievalFilter) => {
    const response = await fixture.agentRuntime.send(
      new RetrieveCommand({
        knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID,
        retrievalQuery: { text },
        retrievalConfiguration: { vectorSearchConfiguration: { numberOfResults, filter } },
      }),
    );
    return response.retrievalResults ?? [];
  };
  const ids = (results: Awaited<ReturnType<typeof retrieve>>) =>
    results.map((result) => result.metadata?.issue_id);
  const everyTicket = (filter: RetrievalFilter) => retrieve('', 100, filter).then(ids);

  it('answers in the Agent Runtime shape with S3 locations, metadata and 0–1 scores', async () => {
    const [first] = await retrieve('VPNに接続できない', 1);
    expect(first).toEqual({
      content: { text: expect.stringContaining('VPNに接続できない'), type: 'TEXT' },
      location: { type: 'S3', s3Location: { uri: 's3://local-tickets/9003.md' } },
      score: expect.any(Number),
      metadata: expect.objectContaining({
        issue_id: '9003',
        category: 'VPN',
        restricted: false,
        'x-amz-bedrock-kb-source-uri': 's3://local-tickets/9003.md',
      }),
    });
    expect(first?.score).toBeGreaterThan(0);
    expect(first?.score).toBeLessThan(1);
  });

  it('finds login tickets for 「ログインできない」 through Japanese segmentation', async () => {
    const found = ids(await retrieve('ログインできない', 3));
    expect(found.slice(0, 2).sort()).toEqual(['9001', '9002']);
  });

  it('honours numberOfResults, with 5 as the default', async () => {
    expect(await retrieve('対応内容', 2)).toHaveLength(2);
    expect(await retrieve('対応内容')).toHaveLength(5);
  });

  it('orders results by descending score', async () => {
    const scores = (await retrieve('VPN login failed', 5)).map((result) => result.score ?? 0);
    expect(scores.length).toBeGreaterThan(1);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('splits a long ticket into chunks that share its metadata', async () => {
    const chunks = await everyTicket({ equals: { key: 'issue_id', value: '9008' } });
    expect(chunks.length).toBeGreaterThan(1);
    expect(new Set(chunks)).toEqual(new Set(['9008']));
  });

  it('fetches a ticket by issue_id with an empty-ish query, as referenced tickets are', async () => {
    expect(ids(await retrieve(' ', 5, { equals: { key: 'issue_id', value: '9005' } }))).toEqual([
      '9005',
    ]);
    // A number matches the string attribute, as OpenSearch coerces term queries.
    expect(await everyTicket({ equals: { key: 'issue_id', value: 9005 } })).toEqual(['9005']);
  });

  it.each<[string, RetrievalFilter, string[]]>([
    ['equals (boolean)', { equals: { key: 'restricted', value: true } }, ['9006']],
    [
      'notEquals',
      { notEquals: { key: 'restricted', value: true } },
      ['9001', '9002', '9003', '9004', '9005', '9007', '9008'],
    ],
    ['in', { in: { key: 'category', value: ['Box', 'Printer'] } }, ['9002', '9005']],
    [
      'notIn',
      { notIn: { key: 'category', value: ['VPN', 'Salesforce', 'Box', 'Teams'] } },
      ['9005', '9006', '9007'],
    ],
    ['greaterThan (number)', { greaterThan: { key: 'priority', value: 3 } }, ['9006', '9007']],
    [
      'greaterThanOrEquals',
      { greaterThanOrEquals: { key: 'priority', value: 4 } },
      ['9006', '9007'],
    ],
    ['lessThan (ISO date)', { lessThan: { key: 'created_at', value: '2024-01-01' } }, ['9005']],
    [
      'lessThanOrEquals',
      { lessThanOrEquals: { key: 'created_at', value: '2024-01-09' } },
      ['9001', '9005'],
    ],
    ['startsWith', { startsWith: { key: 'subject', value: 'Outlook' } }, ['9007']],
    ['stringContains', { stringContains: { key: 'subject', value: 'ループ' } }, ['9002']],
    ['listContains', { listContains: { key: 'tags', value: 'saas' } }, ['9001', '9002']],
    [
      'andAll',
      {
        andAll: [
          { equals: { key: 'category', value: 'VPN' } },
          { listContains: { key: 'tags', value: 'login' } },
        ],
      },
      ['9004'],
    ],
    [
      'orAll',
      {
        orAll: [
          { equals: { key: 'issue_id', value: '9001' } },
          { equals: { key: 'category', value: 'Mail' } },
        ],
      },
      ['9001', '9007'],
    ],
  ])('filters with %s', async (_name, filter, expected) => {
    expect([...new Set(await everyTicket(filter))].sort()).toEqual(expected);
  });

  it('applies the filter to keyword matches too', async () => {
    const found = ids(
      await retrieve('ログイン login', 10, { notEquals: { key: 'restricted', value: true } }),
    );
    expect(found).toContain('9001');
    expect(found).not.toContain('9006');
  });

  it('returns only matching tickets when there is no filter', async () => {
    expect(await retrieve('zzzz-nothing-matches', 5)).toEqual([]);
  });

  it('rejects an unknown knowledge base id with ResourceNotFoundException', async () => {
    const failure = await fixture.agentRuntime
      .send(new RetrieveCommand({ knowledgeBaseId: 'NOSUCHKB01', retrievalQuery: { text: 'VPN' } }))
      .catch((error) => error);
    expect(failure).toMatchObject({
      name: 'ResourceNotFoundException',
      $metadata: { httpStatusCode: 404 },
    });
  });

  it('rejects a malformed filter with ValidationException', async () => {
    const failure = await retrieve('VPN', 5, {
      andAll: [{ equals: { key: 'category', value: 'VPN' } }],
    }).catch((error) => error);
    expect(failure).toMatchObject({ name: 'ValidationException' });
  });

  it('refuses a rerankingConfiguration instead of pretending to rerank', async () => {
    const failure = await fixture.agentRuntime
      .send(
        new RetrieveCommand({
          knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID,
          retrievalQuery: { text: 'VPN' },
          retrievalConfiguration: {
            vectorSearchConfiguration: {
              numberOfResults: 40,
              rerankingConfiguration: {
                type: 'BEDROCK_RERANKING_MODEL',
                bedrockRerankingConfiguration: {
                  modelConfiguration: {
                    modelArn: 'arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0',
                  },
                  numberOfRerankedResults: 8,
                },
              },
            },
          },
        }),
      )
      .catch((error) => error);
    expect(failure).toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining('no reranker'),
      $metadata: { httpStatusCode: 400 },
    });
  });

  it('records each request with its knowledge base id and parsed body', async () => {
    await retrieve('記録', 3, { equals: { key: 'category', value: 'VPN' } });
    expect(fixture.server.retrieveRequests.at(-1)).toEqual({
      knowledgeBaseId: LOCAL_KNOWLEDGE_BASE_ID,
      body: {
        retrievalQuery: { text: '記録' },
        retrievalConfiguration: {
          vectorSearchConfiguration: {
            numberOfResults: 3,
            filter: { equals: { key: 'category', value: 'VPN' } },
          },
        },
      },
    });
  });

  it('also serves HTTP/1.1 clients on the same port', async () => {
    const response = await fetch(
      `${fixture.server.agentRuntimeEndpoint}/knowledgebases/${LOCAL_KNOWLEDGE_BASE_ID}/retrieve`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ retrievalQuery: { text: 'プリンター' } }),
      },
    );
    const body = (await response.json()) as {
      retrievalResults: { metadata: { issue_id: string } }[];
    };
    expect(response.status).toBe(200);
    expect(body.retrievalResults[0]?.metadata.issue_id).toBe('9005');
  });
});
