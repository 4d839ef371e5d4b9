import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { conversationsTable } from '../../functions/adapters/dynamodb/table-definitions.js';
import { DEFAULT_VENDOR_LINK_DOMAINS } from '../../functions/contract/links.js';
import {
  functionEnvironment,
  functionSettings,
  functionVariables,
  readFunctionConfig,
} from '../../functions/settings/function-settings.js';
import {
  MAX_PERSONAL_DATA_SETTINGS_BYTES,
  readPersonalDataSettings,
} from '../../lib/personal-data-settings.js';
import {
  type CfnJson,
  renderArn,
  type SynthesizedServiceDesk,
  synthesizeServiceDesk,
} from './synthesize.js';
import { logicalIdOf, userPoolClientIdOf } from './template-queries.js';

// One concern of the default stack per file; each file synthesizes it once.
describe('ServiceDeskStack (default config): API function', () => {
  let synthesized: SynthesizedServiceDesk;
  let template: Template;

  beforeAll(() => {
    synthesized = synthesizeServiceDesk({});
    template = synthesized.template;
  });

  describe('API function', () => {
    it('is exposed through a streaming, IAM-authenticated Function URL', () => {
      template.hasResourceProperties('AWS::Lambda::Url', {
        AuthType: 'AWS_IAM',
        InvokeMode: 'RESPONSE_STREAM',
      });
    });

    it('runs Node 22 on arm64 with 1024 MB, a 5-minute timeout and its own log group', () => {
      const functions = Object.values(
        template.findResources('AWS::Lambda::Function', {
          Properties: { Environment: { Variables: { AUTH_MODE: 'cognito' } } },
        }),
      );
      expect(functions).toHaveLength(1);
      expect(functions[0]?.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        MemorySize: 1024,
        Timeout: 300,
        Handler: 'index.handler',
      });
      // No cap by default: a new account's Lambda quota of 10 leaves no room for a reservation
      // (the daily token budget bounds spend instead); reuse-knowledge-base.test.ts sets one.
      expect(functions[0]?.Properties.ReservedConcurrentExecutions).toBeUndefined();
      const logGroupId = functions[0]?.Properties.LoggingConfig.LogGroup.Ref;
      expect(template.toJSON().Resources[logGroupId]).toMatchObject({
        Type: 'AWS::Logs::LogGroup',
        Properties: { RetentionInDays: 30 },
        DeletionPolicy: 'Retain',
      });
    });

    it('announces surges on the alarm topic by default, with the surge settings (ADR 0033)', () => {
      const topic = logicalIdOf(template, 'AWS::SNS::Topic');
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: Match.objectLike({
            SURGE_MIN_STAFF: '3',
            SURGE_WINDOW_MINUTES: '60',
            SURGE_ALERTS: 'true',
            ALARM_TOPIC_ARN: { Ref: topic },
          }),
        },
      });
      template.hasResourceProperties('AWS::IAM::Policy', {
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Action: 'sns:Publish', Effect: 'Allow', Resource: { Ref: topic } }),
          ]),
        },
      });
    });

    it('gets the tables, Knowledge Base, model and Cognito ids from its environment', () => {
      template.hasResourceProperties('AWS::Lambda::Function', {
        Environment: {
          Variables: {
            CONVERSATIONS_TABLE: {
              Ref: Match.stringLikeRegexp('^ConversationTablesConversations'),
            },
            TURNS_TABLE: { Ref: Match.stringLikeRegexp('^ConversationTablesTurns') },
            INSIGHTS_TABLE: { Ref: Match.stringLikeRegexp('^ConversationTablesInsights') },
            // Gap examples on by default (insightsExamples).
            INSIGHTS_EXAMPLES: 'true',
            // The gap threshold's default (insightsGapScore).
            INSIGHTS_GAP_SCORE: '0.4',
            KNOWLEDGE_BASE_ID: {
              'Fn::GetAtt': [
                logicalIdOf(template, 'AWS::Bedrock::KnowledgeBase'),
                'KnowledgeBaseId',
              ],
            },
            MODEL_ID: synthesized.config.modelId,
            AUTH_MODE: 'cognito',
            COGNITO_USER_POOL_ID: { Ref: logicalIdOf(template, 'AWS::Cognito::UserPool') },
            // The staff's web client and the acceptance suite's.
            COGNITO_CLIENT_ID: {
              'Fn::Join': [
                '',
                [
                  { Ref: userPoolClientIdOf(template, 'web') },
                  ',',
                  { Ref: userPoolClientIdOf(template, 'acceptance-tests') },
                ],
              ],
            },
            RETENTION_DAYS: '90',
            NUMBER_OF_RESULTS: '8',
            // No padding until the acceptance suite shows the front end holds writes back.
            STREAM_PADDING: 'off',
            STREAM_PADDING_BYTES: '16384',
            PROMPT_CACHING: 'auto',
            // No allowedEmailDomains in the default config: the vendor support sites only.
            ALLOWED_LINK_DOMAINS: DEFAULT_VENDOR_LINK_DOMAINS.join(','),
          },
        },
      });
    });

    it('writes only variables the settings schema reads, and leaves unset only those named here', () => {
      const [api] = Object.values(
        template.findResources('AWS::Lambda::Function', {
          Properties: { Environment: { Variables: { AUTH_MODE: 'cognito' } } },
        }),
      );
      const written = Object.keys(api?.Properties.Environment.Variables ?? {}).filter(
        (name) => name !== 'NODE_ENV',
      );
      expect(written.filter((name) => !functionVariables.includes(name))).toEqual([]);
      // Each setting the stack leaves to the function's default (or that only the local stack
      // sets), so a new setting is a decision here, not a silent gap.
      expect(functionVariables.filter((name) => !written.includes(name)).sort()).toEqual([
        'ATTACHMENT_READING_MAX_TOKENS', // the function's default
        'AWS_REGION', // the Lambda runtime sets it
        'BEDROCK_AGENT_ENDPOINT',
        'BEDROCK_AGENT_RUNTIME_ENDPOINT',
        'BEDROCK_RUNTIME_ENDPOINT',
        'DEV_USER_ROLES', // local dev users
        'DYNAMODB_ENDPOINT',
        'GUARDRAIL_IDENTIFIER', // only with a guardrail
        'GUARDRAIL_VERSION',
        'KNOWLEDGE_EDITORS', // local dev users
        'LOG_LEVEL',
        'METRICS',
        // Only with authIssuer (the pool's roles are its groups); desks only with authDeskRoles.
        'OIDC_AUDIENCE',
        'OIDC_DESK_ROLES',
        'OIDC_EDITOR_ROLES',
        'OIDC_ISSUER',
        'OIDC_LEAD_ROLES',
        'OIDC_ROLE_CLAIM',
        'PERSONAL_DATA_SETTINGS', // only with a personalDataSettings file
        'S3_ENDPOINT',
        'SERVICE_DESK_LEADS', // local dev users
        'TENANT_ID',
        'TICKET_SYNC_SOURCES', // only with ticketSync sources
        'TICKET_SYNC_TABLE',
      ]);
    });

    it('writes an environment the function reads back as the settings the stack decided', () => {
      const [api] = Object.values(
        template.findResources('AWS::Lambda::Function', {
          Properties: { Environment: { Variables: { AUTH_MODE: 'cognito' } } },
        }),
      );
      // Resource names are CloudFormation references at synth; any text stands in for them.
      const environment = Object.fromEntries(
        Object.entries(api?.Properties.Environment.Variables as Record<string, unknown>).map(
          ([name, value]) => [name, typeof value === 'string' ? value : `<${name}>`],
        ),
      );
      const config = readFunctionConfig(environment);
      expect(config).toMatchObject({
        model: {
          id: synthesized.config.modelId,
          dailyTokenBudget: synthesized.config.dailyTokenBudget,
          promptCaching: synthesized.config.promptCaching,
        },
        chat: {
          numberOfResults: synthesized.config.numberOfResults,
          queryExpansion: synthesized.config.queryExpansion,
        },
        insights: { gapScore: synthesized.config.insightsGapScore, examples: true },
        storage: { retentionDays: synthesized.config.retentionDays },
        observability: { tracing: false },
      });
      // The stack's defaults are the function's, but for the one that says why it differs.
      expect(config.model.dailyTokenBudget).toBe(functionSettings.model.dailyTokenBudget.default);
      expect(config.insights.gapScore).toBe(functionSettings.insights.gapScore.default);
      expect(config.chat.queryExpansion).toBe(
        functionSettings.chat.queryExpansion.deployed?.default,
      );
      // Written back from what it read: the same text for every variable the stack wrote (the
      // function's defaults for the rest) — but RERANKING_MODEL_ARN, which the stack writes empty
      // (no reranker) and the function reads as unset.
      expect(environment.RERANKING_MODEL_ARN).toBe('');
      expect(config.knowledgeBase.rerankingModelArn).toBeUndefined();
      expect(functionEnvironment(config)).toMatchObject(
        Object.fromEntries(
          Object.entries(environment).filter(
            ([name]) => functionVariables.includes(name) && name !== 'RERANKING_MODEL_ARN',
          ),
        ),
      );
    });

    it('may touch only the three tables, the Conversations index, the KB, published tickets, uploaded categories, attachments, the model and the alarm topic', () => {
      const [, policy] = Object.entries(template.findResources('AWS::IAM::Policy')).find(([id]) =>
        id.startsWith('ApiRoleDefaultPolicy'),
      ) as [string, CfnJson];
      const statements = (policy.Properties.PolicyDocument.Statement as CfnJson[]).map(
        (statement) => ({
          actions: [statement.Action].flat(),
          resources: [statement.Resource].flat().map(renderArn),
          condition: statement.Condition,
        }),
      );
      const profileArn =
        'arn:<AWS::Partition>:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-sonnet-4-5-20250929-v1:0';
      expect(statements).toEqual([
        {
          actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          resources: ['<ApiLogs.Arn>'],
          condition: undefined,
        },
        {
          // Sorted: @aws-cdk/aws-iam:minimizePolicies.
          actions: [
            'dynamodb:BatchGetItem',
            'dynamodb:BatchWriteItem',
            'dynamodb:ConditionCheckItem',
            'dynamodb:DeleteItem',
            'dynamodb:GetItem',
            'dynamodb:PutItem',
            'dynamodb:Query',
            'dynamodb:UpdateItem',
          ],
          resources: [
            '<ConversationTablesConversations.Arn>',
            '<ConversationTablesTurns.Arn>',
            `<ConversationTablesConversations.Arn>/index/${conversationsTable.localSecondaryIndexes[0].indexName}`,
          ],
          condition: undefined,
        },
        {
          // Insights (ADR 0022): counters, examples and runs; no scan, no batch, no index.
          actions: [
            'dynamodb:DeleteItem',
            'dynamodb:GetItem',
            'dynamodb:PutItem',
            'dynamodb:Query',
            'dynamodb:UpdateItem',
          ],
          resources: ['<ConversationTablesInsights.Arn>'],
          condition: undefined,
        },
        {
          actions: ['bedrock:Retrieve'],
          resources: ['<KnowledgeBase.KnowledgeBaseArn>'],
          condition: undefined,
        },
        {
          // Knowledge capture: published tickets only, never the seed tickets under tickets/.
          actions: ['s3:DeleteObject', 's3:PutObject'],
          resources: ['<KnowledgeBaseDocuments.Arn>/tickets/published/*'],
          condition: undefined,
        },
        {
          // The category files of uploads after the deploy, read only (ADR 0020).
          actions: ['s3:GetObject'],
          resources: ['<KnowledgeBaseDocuments.Arn>/ticket-categories/*'],
          condition: undefined,
        },
        {
          actions: ['s3:ListBucket'],
          resources: ['<KnowledgeBaseDocuments.Arn>'],
          condition: { StringLike: { 's3:prefix': 'ticket-categories/*' } },
        },
        {
          actions: ['bedrock:StartIngestionJob'],
          resources: ['<KnowledgeBase.KnowledgeBaseArn>'],
          condition: undefined,
        },
        {
          // The insights page's ticket catalog: the data source's document listing (#28).
          actions: ['bedrock:ListKnowledgeBaseDocuments'],
          resources: ['<KnowledgeBase.KnowledgeBaseArn>'],
          condition: undefined,
        },
        {
          // Attachments (ADR 0030): their own bucket's folder, no listing.
          actions: ['s3:DeleteObject', 's3:GetObject', 's3:PutObject'],
          resources: ['<Attachments.Arn>/attachments/*'],
          condition: undefined,
        },
        {
          actions: ['bedrock:InvokeModelWithResponseStream'],
          resources: [profileArn],
          condition: undefined,
        },
        {
          actions: ['bedrock:InvokeModelWithResponseStream'],
          resources: [
            'arn:<AWS::Partition>:bedrock:*::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0',
            // The global profile's region-less model ARN, named as AWS documents it.
            'arn:<AWS::Partition>:bedrock:::foundation-model/anthropic.claude-sonnet-4-5-20250929-v1:0',
          ],
          condition: { ArnLike: { 'bedrock:InferenceProfileArn': expect.anything() } },
        },
        {
          // Bedrock subscribes to a Marketplace model on its first call, as the caller.
          actions: ['aws-marketplace:Subscribe', 'aws-marketplace:ViewSubscriptions'],
          resources: ['*'],
          condition: { StringEquals: { 'aws:CalledViaLast': 'bedrock.amazonaws.com' } },
        },
        {
          // Surge alerts (ADR 0033): the alarm topic, with its own key.
          actions: ['sns:Publish'],
          resources: ['<MonitoringAlarmTopic>'],
          condition: undefined,
        },
        {
          actions: ['kms:Decrypt', 'kms:GenerateDataKey'],
          resources: ['<MonitoringTopicKey.Arn>'],
          condition: undefined,
        },
      ]);
      const foundationModels = statements.find((statement) => statement.condition?.ArnLike);
      expect(renderArn(foundationModels?.condition.ArnLike['bedrock:InferenceProfileArn'])).toBe(
        profileArn,
      );
    });
  });
});

describe('ServiceDeskStack: stream padding settings', () => {
  it('passes streamPadding and streamPaddingBytes to the API function', () => {
    const { template } = synthesizeServiceDesk({
      streamPadding: 'after-pause',
      streamPaddingBytes: '4096',
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          STREAM_PADDING: 'after-pause',
          STREAM_PADDING_BYTES: '4096',
        }),
      },
    });
  });

  it('passes the calibrated knowledge-gap threshold (insightsGapScore) to the function', () => {
    const { template } = synthesizeServiceDesk({ insightsGapScore: '0.55' });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ INSIGHTS_GAP_SCORE: '0.55' }) },
    });
  });

  it('sends no surge alerts with surgeAlerts: false', () => {
    const { template } = synthesizeServiceDesk({ surgeAlerts: false, surgeMinStaff: 4 });
    const [api] = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { AUTH_MODE: 'cognito' } } },
      }),
    );
    expect(api?.Properties.Environment.Variables).toMatchObject({
      SURGE_ALERTS: 'false',
      SURGE_MIN_STAFF: '4',
    });
    expect(api?.Properties.Environment.Variables.ALARM_TOPIC_ARN).toBeUndefined();
  });

  it('turns gap examples off with insightsExamples: false', () => {
    const { template } = synthesizeServiceDesk({ insightsExamples: false });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ INSIGHTS_EXAMPLES: 'false' }) },
    });
  });

  it('refuses an unknown mode or a padding too small to be a comment', () => {
    expect(() => synthesizeServiceDesk({ streamPadding: 'always' })).toThrow(/streamPadding/);
    expect(() => synthesizeServiceDesk({ streamPaddingBytes: 2 })).toThrow(/streamPaddingBytes/);
  });
});

describe('ServiceDeskStack: personal-data settings', () => {
  const settingsFile = fileURLToPath(
    new URL('./fixtures/personal-data-settings.json', import.meta.url),
  );

  it('gives knowledge capture the settings file as compact JSON (PERSONAL_DATA_SETTINGS)', () => {
    const { template } = synthesizeServiceDesk({ personalDataSettings: settingsFile });
    const [api] = Object.values(
      template.findResources('AWS::Lambda::Function', {
        Properties: { Environment: { Variables: { AUTH_MODE: 'cognito' } } },
      }),
    );
    const value = api?.Properties.Environment.Variables.PERSONAL_DATA_SETTINGS;
    expect(JSON.parse(value)).toEqual(JSON.parse(readFileSync(settingsFile, 'utf8')));
    expect(value).not.toMatch(/\n/);
  });

  it('sets nothing without the setting (the built-in detectors only)', () => {
    const { template } = synthesizeServiceDesk({});
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          AUTH_MODE: 'cognito',
          PERSONAL_DATA_SETTINGS: Match.absent(),
        }),
      },
    });
  });
});

describe('readPersonalDataSettings', () => {
  const inTemporaryFile = (content: string) => {
    const path = join(mkdtempSync(join(tmpdir(), 'scrub-settings-')), 'settings.json');
    writeFileSync(path, content);
    return path;
  };

  it('stops the synth with the file and the field at fault', () => {
    const badPattern = inTemporaryFile('{"patterns":[{"kind":"x","pattern":"("}]}');
    expect(() => readPersonalDataSettings(badPattern)).toThrow(
      new RegExp(`personalDataSettings: ${escapeRegExp(badPattern)}: .*patterns\\[0\\]`),
    );
    expect(() => readPersonalDataSettings(inTemporaryFile('{ not json'))).toThrow(
      /personalDataSettings: cannot read .*settings\.json/,
    );
    expect(() => readPersonalDataSettings('/nonexistent/scrub.json')).toThrow(
      /personalDataSettings: cannot read \/nonexistent\/scrub\.json/,
    );
  });

  it('refuses a file too large for the function environment, saying how large it is', () => {
    const dictionary = Array.from({ length: 400 }, (_, index) => `Person Number${index}`);
    const large = inTemporaryFile(JSON.stringify({ dictionary }));
    expect(() => readPersonalDataSettings(large)).toThrow(
      new RegExp(`\\d+ bytes as compact JSON; .* at most ${MAX_PERSONAL_DATA_SETTINGS_BYTES}`),
    );
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
