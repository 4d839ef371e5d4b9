import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  foundationModelId,
  inferenceProfilePrefix,
  modelInvokeStatements,
} from '../../lib/bedrock-model-access.js';
import { defaultModelId, embeddingDimension, parseServiceDeskConfig } from '../../lib/config.js';
import { hashTicketDocuments } from '../../lib/constructs/hash-ticket-documents.js';
import { WebHosting } from '../../lib/constructs/web-hosting.js';
import { resourceNamePrefix } from '../../lib/service-desk-stack.js';
import { featureFlags } from './synthesize.js';

const require = createRequire(import.meta.url);

describe('parseServiceDeskConfig', () => {
  it('fills every default from an empty context', () => {
    expect(parseServiceDeskConfig({})).toMatchObject({
      stackName: 'ServiceDeskAssistant',
      region: 'us-east-1',
      modelId: defaultModelId,
      embeddingModelId: 'amazon.titan-embed-text-v2:0',
      removalPolicy: 'retain',
      enableWaf: false,
      standbyReplicas: false,
      allowedEmailDomains: [],
      retentionDays: 90,
    });
  });

  it('accepts the strings `cdk -c key=value` passes', () => {
    expect(
      parseServiceDeskConfig({
        enableWaf: 'false',
        standbyReplicas: 'true',
        retentionDays: '30',
        allowedEmailDomains: 'Example.com, example.co.jp',
      }),
    ).toMatchObject({
      enableWaf: false,
      standbyReplicas: true,
      retentionDays: 30,
      allowedEmailDomains: ['example.com', 'example.co.jp'],
    });
  });

  it('names every invalid or unknown key', () => {
    expect(() =>
      parseServiceDeskConfig({ region: 'Tokyo', logRetentionDays: 31, existingKbId: 'x' }),
    ).toThrowError(/region[\s\S]*logRetentionDays: must be one of[\s\S]*existingKbId/);
  });
});

describe('embeddingDimension', () => {
  it('is 1024 for Titan Text Embeddings v2', () => {
    expect(embeddingDimension('amazon.titan-embed-text-v2:0')).toBe(1024);
  });
});

describe('modelInvokeStatements', () => {
  const stack = new Stack(new App(), 'Models', {
    env: { account: '123456789012', region: 'eu-west-1' },
  });
  const render = (modelId: string) =>
    modelInvokeStatements(stack, modelId, ['bedrock:InvokeModelWithResponseStream']).map(
      (statement) => stack.resolve(statement.toStatementJson()),
    );

  it('grants a plain model id in the stack region only', () => {
    expect(inferenceProfilePrefix('anthropic.claude-3-haiku-20240307-v1:0')).toBeUndefined();
    expect(render('anthropic.claude-3-haiku-20240307-v1:0')).toEqual([
      {
        Action: 'bedrock:InvokeModelWithResponseStream',
        Effect: 'Allow',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':bedrock:eu-west-1::foundation-model/anthropic.claude-3-haiku-20240307-v1:0',
            ],
          ],
        },
      },
    ]);
  });

  it('grants an inference profile and its model in any region through that profile only', () => {
    expect(foundationModelId(defaultModelId)).toBe('anthropic.claude-sonnet-4-5-20250929-v1:0');
    const [profile, model] = render('eu.anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(JSON.stringify(profile?.Resource)).toContain(
      ':bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-sonnet-4-5-20250929-v1:0',
    );
    expect(JSON.stringify(model?.Resource)).toContain(
      ':bedrock:*::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0',
    );
    expect(model?.Condition).toEqual({
      ArnLike: { 'bedrock:InferenceProfileArn': profile?.Resource },
    });
  });
});

describe('resourceNamePrefix', () => {
  it('keeps short names and hashes long ones into OpenSearch naming rules', () => {
    expect(resourceNamePrefix('ServiceDeskAssistant')).toBe('servicedeskassistant');
    const long = resourceNamePrefix('ServiceDeskAssistant-Production');
    expect(long).toMatch(/^[a-z][a-z0-9-]{2,19}$/);
    expect(long).not.toBe(resourceNamePrefix('ServiceDeskAssistant-Staging'));
  });
});

describe('hashTicketDocuments', () => {
  it('changes when a document changes, so the next deploy starts an ingestion job', () => {
    const directory = mkdtempSync(join(tmpdir(), 'tickets-'));
    try {
      writeFileSync(join(directory, '1.md'), '# one');
      writeFileSync(join(directory, '1.md.metadata.json'), '{}');
      const before = hashTicketDocuments(directory);
      expect(hashTicketDocuments(directory)).toBe(before);
      writeFileSync(join(directory, '1.md'), '# one, edited');
      expect(hashTicketDocuments(directory)).not.toBe(before);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('refuses an empty or missing directory', () => {
    expect(() => hashTicketDocuments('/nonexistent/tickets')).toThrowError(/not a directory/);
  });
});

describe('WebHosting', () => {
  it('asks for a build when the web app is missing', () => {
    const stack = new Stack(new App(), 'Web', { env: { region: 'us-east-1' } });
    const fn = new lambda.Function(stack, 'Fn', {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => {}'),
    });
    const functionUrl = fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.AWS_IAM });
    expect(
      () =>
        new WebHosting(stack, 'Web', {
          webDistPath: '/nonexistent/web/dist',
          functionUrl,
          auth: { authority: 'a', clientId: 'c', domainUrl: 'https://d', userPoolId: 'p' },
        }),
    ).toThrowError(/Run npm run build first/);
  });
});

describe('cdk.json', () => {
  it('pins every feature flag the installed aws-cdk-lib recommends, at its recommended value', () => {
    const recommended = JSON.parse(
      readFileSync(require.resolve('aws-cdk-lib/recommended-feature-flags.json'), 'utf8'),
    ) as Record<string, unknown>;
    expect(featureFlags).toEqual(recommended);
  });
});
