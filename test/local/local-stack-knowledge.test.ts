import { access } from 'node:fs/promises';
import { BedrockAgentClient, StartIngestionJobCommand } from '@aws-sdk/client-bedrock-agent';
import { BedrockAgentRuntimeClient, RetrieveCommand } from '@aws-sdk/client-bedrock-agent-runtime';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { readFunctionConfig } from '../../functions/settings/function-settings.js';
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
      knowledge: {
        bucket: LOCAL_KNOWLEDGE_BUCKET,
        dataSourceId: LOCAL_DATA_SOURCE_ID,
        keyPrefix: 'tickets/published/',
      },
      endpoints: { s3: stack.s3?.endpoint, bedrockAgent: stack.bedrock?.agentEndpoint },
    });
  });

  it('connects a publish through its settings to the next retrieval, as the function would', async () => {
    const config = readFunctionConfig(stack.functionEnvironment);
    const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    const region = config.endpoints.region;
    const s3 = new S3Client({
      endpoint: config.endpoints.s3,
      forcePathStyle: true,
      region,
      credentials,
    });
    const agent = new BedrockAgentClient({
      endpoint: config.endpoints.bedrockAgent,
      region,
      credentials,
    });
    const agentRuntime = new BedrockAgentRuntimeClient({
      endpoint: config.endpoints.bedrockAgentRuntime,
      region,
      credentials,
    });
    try {
      const key = `${config.knowledge.keyPrefix}900101.md`;
      await s3.send(
        new PutObjectCommand({
          Bucket: config.knowledge.bucket,
          Key: key,
          Body: '# Wisteriaprinter jams\n\nThe Wisteriaprinter jams on A3 paper.\n',
        }),
      );
      await s3.send(
        new PutObjectCommand({
          Bucket: config.knowledge.bucket,
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
          knowledgeBaseId: config.knowledgeBase.id,
          dataSourceId: config.knowledge.dataSourceId,
        }),
      );
      expect(ingestionJob?.statistics?.numberOfNewDocumentsIndexed).toBe(1);
      const { retrievalResults } = await agentRuntime.send(
        new RetrieveCommand({
          knowledgeBaseId: config.knowledgeBase.id,
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
