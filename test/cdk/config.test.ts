import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { describe, expect, it } from 'vitest';
import { DEFAULT_VENDOR_LINK_DOMAINS } from '../../functions/contract/links.js';
import {
  foundationModelId,
  inferenceProfilePrefix,
  modelInvokeStatements,
} from '../../lib/bedrock-model-access.js';
import {
  closestSetting,
  defaultModelId,
  embeddingDimension,
  linkDomainsOf,
  parseServiceDeskConfig,
  settingsInContext,
} from '../../lib/config.js';
import { hashTicketDocuments } from '../../lib/constructs/hash-ticket-documents.js';
import { webAppSource } from '../../lib/constructs/web-app-source.js';
import { resourceNamePrefix } from '../../lib/service-desk-stack.js';
import { bundlingOn, featureFlags } from './synthesize.js';

const fixture = (path: string) => fileURLToPath(new URL(`./fixtures/${path}`, import.meta.url));

const require = createRequire(import.meta.url);

describe('parseServiceDeskConfig', () => {
  it('fills every default from an empty context', () => {
    expect(parseServiceDeskConfig({})).toMatchObject({
      stackName: 'ServiceDeskAssistant',
      region: 'us-east-1',
      modelId: defaultModelId,
      embeddingModelId: 'amazon.titan-embed-text-v2:0',
      removalPolicy: 'retain',
      enableWaf: true,
      accessLogs: true,
      kmsKey: '',
      dataResidency: 'none',
      standbyReplicas: false,
      allowedEmailDomains: [],
      retentionDays: 90,
      promptCaching: 'auto',
    });
    expect(parseServiceDeskConfig({ promptCaching: 'off' }).promptCaching).toBe('off');
    expect(() => parseServiceDeskConfig({ promptCaching: 'on' })).toThrow(/promptCaching/);
  });

  it('takes the knowledge-gap threshold as a score in 0–1, as `-c insightsGapScore=0.55` passes it', () => {
    expect(parseServiceDeskConfig({}).insightsGapScore).toBe(0.4);
    expect(parseServiceDeskConfig({ insightsGapScore: '0.55' }).insightsGapScore).toBe(0.55);
    expect(() => parseServiceDeskConfig({ insightsGapScore: '1.5' })).toThrow(/insightsGapScore/);
    expect(() => parseServiceDeskConfig({ insightsGapScore: 'high' })).toThrow(/insightsGapScore/);
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

describe('linkDomainsOf', () => {
  it("allows the organisation's own domains and the vendor support sites by default", () => {
    expect(linkDomainsOf(parseServiceDeskConfig({ allowedEmailDomains: 'example.co.jp' }))).toEqual(
      ['example.co.jp', ...DEFAULT_VENDOR_LINK_DOMAINS],
    );
  });

  it('takes allowedLinkDomains as the whole list when it is set', () => {
    const config = parseServiceDeskConfig({
      allowedEmailDomains: 'example.co.jp',
      allowedLinkDomains: 'Example.co.jp, support.microsoft.com',
    });
    expect(linkDomainsOf(config)).toEqual(['example.co.jp', 'support.microsoft.com']);
    expect(() => parseServiceDeskConfig({ allowedLinkDomains: 'http://evil.example' })).toThrow(
      /allowedLinkDomains/,
    );
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

describe('modelInvokeStatements for a global inference profile', () => {
  it("grants the global profile's region-less foundation-model ARN explicitly, through the profile only", () => {
    const stack = new Stack(new App(), 'Global', {
      env: { account: '123456789012', region: 'us-east-1' },
    });
    const [profile, model] = modelInvokeStatements(stack, defaultModelId, [
      'bedrock:InvokeModelWithResponseStream',
    ]).map((statement) => stack.resolve(statement.toStatementJson()));
    const rendered = JSON.stringify(model?.Resource);
    // As AWS's IAM example for global cross-Region inference names it: no region, no account.
    expect(rendered).toContain(
      ':bedrock:::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0',
    );
    expect(rendered).toContain(
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

describe('webAppSource', () => {
  it('asks for a build when a prebuilt web app is missing', () => {
    expect(() => webAppSource({ prebuilt: '/nonexistent/web/dist' })).toThrowError(
      /The web app is not built: \/nonexistent\/web\/dist\/index.html is missing/,
    );
  });

  it('builds a Vite project locally during synthesis into the deployed asset', () => {
    const outdir = mkdtempSync(join(tmpdir(), 'web-asset-'));
    try {
      const app = new App({ outdir, postCliContext: bundlingOn });
      const stack = new Stack(app, 'Web', { env: { region: 'us-east-1' } });
      new s3deploy.BucketDeployment(stack, 'Deploy', {
        sources: [webAppSource({ viteConfig: fixture('web-src/vite.config.ts') })],
        destinationBucket: new s3.Bucket(stack, 'Bucket'),
      });
      const assembly = app.synth();
      const built = readdirSync(assembly.directory)
        .filter((entry) => entry.startsWith('asset.'))
        .map((entry) => join(assembly.directory, entry))
        .filter((directory) => existsSync(join(directory, 'index.html')));
      expect(built).toHaveLength(1);
      const [directory] = built as [string];
      // Vite's output: the page, rewritten to load a content-hashed bundle of main.js.
      expect(readFileSync(join(directory, 'index.html'), 'utf8')).toMatch(
        /<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/,
      );
      expect(readdirSync(join(directory, 'assets')).join()).toMatch(/^index-[\w-]+\.js$/);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
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

describe('modelPrices', () => {
  it('takes prices from cdk.json (an object) or -c (its JSON text), and refuses a typo in one', () => {
    const prices = { 'anthropic.claude-x-v1:0': { inputPerMillion: 3, outputPerMillion: 15 } };
    expect(parseServiceDeskConfig({}).modelPrices).toEqual({});
    expect(parseServiceDeskConfig({ modelPrices: prices }).modelPrices).toEqual(prices);
    expect(parseServiceDeskConfig({ modelPrices: JSON.stringify(prices) }).modelPrices).toEqual(
      prices,
    );
    expect(() =>
      parseServiceDeskConfig({
        modelPrices: { 'anthropic.claude-x-v1:0': { inputPerMilion: 3, outputPerMillion: 15 } },
      }),
    ).toThrow(/modelPrices/);
  });
});

describe('settings that are not settings', () => {
  it('fails on a misspelled setting with the closest one, instead of ignoring it', () => {
    expect(() => parseServiceDeskConfig(settingsInContext({ vectorstore: 's3-vectors' }))).toThrow(
      /vectorstore: not a setting of this app; did you mean vectorStore\?/,
    );
    expect(() => parseServiceDeskConfig(settingsInContext({ embedingModelId: 'x' }))).toThrow(
      /did you mean embeddingModelId\?/,
    );
    expect(closestSetting('somethingElseEntirely')).toBeUndefined();
  });

  it("leaves CDK's own context keys (feature flags, CLI, lookups) and unset keys alone", () => {
    expect(
      settingsInContext({
        ...featureFlags,
        'aws:cdk:enable-path-metadata': true,
        'acknowledged-issue-numbers': [32775],
        'cli-telemetry': false,
        'availability-zones:account=123456789012:region=us-east-1': ['us-east-1a'],
        existingKnowledgeBaseId: null,
        region: 'eu-west-1',
      }),
    ).toEqual({ region: 'eu-west-1' });
  });

  it('reads every setting of cdk.json, and nothing else, as a setting', () => {
    const context = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'))
      .context as Record<string, unknown>;
    expect(() => parseServiceDeskConfig(settingsInContext(context))).not.toThrow();
  });
});
