import { access } from 'node:fs/promises';
import { BedrockAgentClient, StartIngestionJobCommand } from '@aws-sdk/client-bedrock-agent';
import { BedrockAgentRuntimeClient, RetrieveCommand } from '@aws-sdk/client-bedrock-agent-runtime';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readFunctionConfig } from '../../functions/api/function-config.js';
import {
  LOCAL_DATA_SOURCE_ID,
  LOCAL_KNOWLEDGE_BUCKET,
} from '../../local/bedrock/local-bedrock-defaults.js';
import type { LocalStack } from '../../local/start-local-stack.js';
import { startTestStack } from '../support/start-test-stack.js';

describe('local stack: knowledge capture pieces', () => {
  // The settings and services the stack gives its function; no test here invokes it, so no
  // execution environment is started ahead (each costs a Node process and the handler's init).
  const noEnvironments = { provisionedEnvironments: 0 };
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestStack(noEnvironments);
  });
  afterAll(() => stack?.stop());

  it('gives the function a local bucket, data source and endpoints it accepts', () => {
    const config = readFunctionConfig(stack.functionEnvironment);
    expect(config).toMatchObject({
      KNOWLEDGE_BUCKET: LOCAL_KNOWLEDGE_BUCKET,
      KNOWLEDGE_DATA_SOURCE_ID: LOCAL_DATA_SOURCE_ID,
      KNOWLEDGE_KEY_PREFIX: 'tickets/published/',
      S3_ENDPOINT: stack.s3?.endpoint,
      BEDROCK_AGENT_ENDPOINT: stack.bedrock?.agentEndpoint,
    });
  });

  it('connects a publish through its settings to the next retrieval, as the function would', async () => {
    const environment = readFunctionConfig(stack.functionEnvironment);
    const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    const region = environment.AWS_REGION;
    const s3 = new S3Client({
      endpoint: environment.S3_ENDPOINT,
      forcePathStyle: true,
      region,
      credentials,
    });
    const agent = new BedrockAgentClient({
      endpoint: environment.BEDROCK_AGENT_ENDPOINT,
      region,
      credentials,
    });
    const agentRuntime = new BedrockAgentRuntimeClient({
      endpoint: environment.BEDROCK_AGENT_RUNTIME_ENDPOINT,
      region,
      credentials,
    });
    try {
      const key = `${environment.KNOWLEDGE_KEY_PREFIX}900101.md`;
      await s3.send(
        new PutObjectCommand({
          Bucket: environment.KNOWLEDGE_BUCKET,
          Key: key,
          Body: '# Wisteriaprinter jams\n\nThe Wisteriaprinter jams on A3 paper.\n',
        }),
      );
      await s3.send(
        new PutObjectCommand({
          Bucket: environment.KNOWLEDGE_BUCKET,
          Key: `${key}.metadata.json`,
          Body: JSON.stringify({
            metadataAttributes: {
              issue_id: '900101',
              subject: 'Wisteriaprinter jams',
              restricted: false,
            },
          }),
        }),
      );
      const { ingestionJob } = await agent.send(
        new StartIngestionJobCommand({
          knowledgeBaseId: environment.KNOWLEDGE_BASE_ID,
          dataSourceId: environment.KNOWLEDGE_DATA_SOURCE_ID,
        }),
      );
      expect(ingestionJob?.statistics?.numberOfNewDocumentsIndexed).toBe(1);
      const { retrievalResults } = await agentRuntime.send(
        new RetrieveCommand({
          knowledgeBaseId: environment.KNOWLEDGE_BASE_ID,
          retrievalQuery: { text: 'Wisteriaprinter' },
        }),
      );
      expect(retrievalResults?.map((result) => result.metadata?.issue_id)).toEqual(['900101']);
    } finally {
      s3.destroy();
      agent.destroy();
      agentRuntime.destroy();
    }
  });

  it('starts no S3 when S3_ENDPOINT names one, and passes the bucket settings through', async () => {
    const other = await startTestStack({
      ...noEnvironments,
      environment: {
        DYNAMODB_ENDPOINT: inject('dynamoDbEndpoint'),
        S3_ENDPOINT: 'http://127.0.0.1:9',
        KNOWLEDGE_BUCKET: 'team-documents',
      },
    });
    try {
      expect(other.s3).toBeUndefined();
      expect(other.functionEnvironment).toMatchObject({
        S3_ENDPOINT: 'http://127.0.0.1:9',
        KNOWLEDGE_BUCKET: 'team-documents',
        KNOWLEDGE_DATA_SOURCE_ID: LOCAL_DATA_SOURCE_ID,
      });
    } finally {
      await other.stop();
    }
  });

  it('removes the temporary bucket folder on stop', async () => {
    const other = await startTestStack(noEnvironments);
    const root = other.s3?.root ?? '';
    await access(root);
    await other.stop();
    await expect(access(root)).rejects.toThrow();
  });
});
