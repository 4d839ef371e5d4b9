import { describe, expect, it } from 'vitest';
import { defaultChatConfig } from '../../functions/chat/ports.js';
import { DEFAULT_VENDOR_LINK_DOMAINS } from '../../functions/contract/links.js';
import {
  type FunctionConfig,
  functionEnvironment,
  functionSettings,
  functionVariables,
  guardrailOf,
  readFunctionConfig,
} from '../../functions/settings/function-settings.js';

const required = {
  AUTH_MODE: 'local',
  CONVERSATIONS_TABLE: 'Conversations',
  TURNS_TABLE: 'Turns',
  KNOWLEDGE_BASE_ID: 'KB',
  MODEL_ID: 'model',
};

describe('readFunctionConfig', () => {
  it('gives the model 8192 output tokens per answer, a constant no deployment varies', () => {
    expect(defaultChatConfig.maxTokens).toBe(8192);
    expect(functionVariables).not.toContain('MAX_TOKENS');
  });

  it('reads a guardrail from GUARDRAIL_IDENTIFIER and GUARDRAIL_VERSION, both or neither', () => {
    expect(guardrailOf(readFunctionConfig(required).model)).toBeUndefined();
    expect(
      guardrailOf(
        readFunctionConfig({
          ...required,
          GUARDRAIL_IDENTIFIER: 'gr1',
          GUARDRAIL_VERSION: 'DRAFT',
        }).model,
      ),
    ).toEqual({ identifier: 'gr1', version: 'DRAFT' });
    expect(() => readFunctionConfig({ ...required, GUARDRAIL_IDENTIFIER: 'gr1' })).toThrow(
      /GUARDRAIL_VERSION/,
    );
    expect(() =>
      readFunctionConfig({ ...required, GUARDRAIL_IDENTIFIER: 'gr1', GUARDRAIL_VERSION: 'v1' }),
    ).toThrow(/GUARDRAIL_VERSION/);
  });

  it('reads ALLOWED_LINK_DOMAINS as a list, the vendor support sites when unset', () => {
    expect(readFunctionConfig(required).chat.allowedLinkDomains).toEqual([
      ...DEFAULT_VENDOR_LINK_DOMAINS,
    ]);
    expect(
      readFunctionConfig({ ...required, ALLOWED_LINK_DOMAINS: 'example.co.jp, aka.ms' }).chat
        .allowedLinkDomains,
    ).toEqual(['example.co.jp', 'aka.ms']);
    expect(() =>
      readFunctionConfig({ ...required, ALLOWED_LINK_DOMAINS: 'https://example.co.jp/' }),
    ).toThrow(/ALLOWED_LINK_DOMAINS/);
  });

  it.each(['acme#eu', '#', '', ' ', 'a'.repeat(65)])(
    'refuses TENANT_ID %j at start-up instead of failing every request',
    (tenant) => {
      expect(() => readFunctionConfig({ ...required, TENANT_ID: tenant })).toThrow(/TENANT_ID/);
    },
  );

  it('searches by what VECTOR_STORE supports, and refuses HYBRID on S3 Vectors at start-up', () => {
    expect(readFunctionConfig(required).knowledgeBase.vectorStore).toBe('opensearch-serverless');
    expect(readFunctionConfig(required).knowledgeBase.searchType).toBeUndefined();
    expect(
      readFunctionConfig({ ...required, VECTOR_STORE: 's3-vectors', SEARCH_TYPE: 'SEMANTIC' }),
    ).toMatchObject({ knowledgeBase: { vectorStore: 's3-vectors', searchType: 'SEMANTIC' } });
    expect(() =>
      readFunctionConfig({ ...required, VECTOR_STORE: 's3-vectors', SEARCH_TYPE: 'HYBRID' }),
    ).toThrow(/SEARCH_TYPE: HYBRID search needs .* s3-vectors is semantic only/);
    expect(() => readFunctionConfig({ ...required, VECTOR_STORE: 'pinecone' })).toThrow(
      /VECTOR_STORE/,
    );
  });

  it('reads MODEL_PRICES (the modelPrices setting) as JSON prices, and refuses malformed ones', () => {
    expect(readFunctionConfig(required).model.prices).toEqual({});
    const prices = { 'anthropic.claude-x-v1:0': { inputPerMillion: 3, outputPerMillion: 15 } };
    expect(
      readFunctionConfig({ ...required, MODEL_PRICES: JSON.stringify(prices) }).model.prices,
    ).toEqual(prices);
    expect(() => readFunctionConfig({ ...required, MODEL_PRICES: '{nope' })).toThrow(
      /MODEL_PRICES must be JSON/,
    );
    expect(() =>
      readFunctionConfig({ ...required, MODEL_PRICES: '{"m.x":{"inputPerMillion":3}}' }),
    ).toThrow(/MODEL_PRICES/);
  });

  it('reads RERANKING_MODEL_ARN as a foundation-model ARN, empty meaning no reranking', () => {
    expect(readFunctionConfig(required).knowledgeBase.rerankingModelArn).toBeUndefined();
    expect(
      readFunctionConfig({ ...required, RERANKING_MODEL_ARN: '' }).knowledgeBase.rerankingModelArn,
    ).toBe(undefined);
    const arn = 'arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0';
    expect(
      readFunctionConfig({ ...required, RERANKING_MODEL_ARN: arn }).knowledgeBase.rerankingModelArn,
    ).toBe(arn);
    expect(() =>
      readFunctionConfig({ ...required, RERANKING_MODEL_ARN: 'amazon.rerank-v1:0' }),
    ).toThrow(/RERANKING_MODEL_ARN must be a Bedrock foundation-model ARN/);
  });

  it('reads PERSONAL_DATA_SETTINGS as scrub settings, none when unset, and names a bad field', () => {
    expect(readFunctionConfig(required).knowledge.personalDataSettings).toEqual({});
    expect(
      readFunctionConfig({ ...required, PERSONAL_DATA_SETTINGS: '{"dictionary":["山田 太郎"]}' })
        .knowledge.personalDataSettings,
    ).toEqual({ dictionary: ['山田 太郎'] });
    expect(() => readFunctionConfig({ ...required, PERSONAL_DATA_SETTINGS: '{nope' })).toThrow(
      /PERSONAL_DATA_SETTINGS/,
    );
    expect(() =>
      readFunctionConfig({
        ...required,
        PERSONAL_DATA_SETTINGS: '{"patterns":[{"kind":"ip","pattern":"("}]}',
      }),
    ).toThrow(/PERSONAL_DATA_SETTINGS: .*patterns\[0\]\.pattern: not a valid regular expression/);
  });

  it('accepts a tenant id made of letters, digits and . _ -', () => {
    expect(readFunctionConfig({ ...required, TENANT_ID: 'acme-eu_1.prod' }).auth.tenantId).toBe(
      'acme-eu_1.prod',
    );
  });

  it('caches prompts where the model supports it unless PROMPT_CACHING is off', () => {
    expect(readFunctionConfig(required).model.promptCaching).toBe('auto');
    expect(readFunctionConfig({ ...required, PROMPT_CACHING: 'off' }).model.promptCaching).toBe(
      'off',
    );
    expect(() => readFunctionConfig({ ...required, PROMPT_CACHING: 'on' })).toThrow(
      /PROMPT_CACHING/,
    );
  });
});

describe('functionEnvironment', () => {
  /** A value for every setting, none of them its default. */
  const everySetting = {
    auth: {
      mode: 'cognito',
      userPoolId: 'us-east-1_pool',
      clientId: 'client',
      tenantId: 'acme',
      knowledgeEditorGroup: 'editors',
      knowledgeEditors: ['alice', 'bob'],
      serviceDeskLeadGroup: 'leads',
      serviceDeskLeads: ['carol'],
      oidcIssuer: 'https://login.example.com/tenant/v2.0',
      oidcAudience: ['api-client', 'suite-client'],
      roleClaim: 'cognito:groups',
      editorRoles: ['Editors'],
      leadRoles: ['Leads'],
      deskRoles: [
        { name: 'HRDeskStaff', value: 'hr' },
        { name: 'FacilitiesStaff', value: 'facilities' },
      ],
      devUserRoles: [{ name: 'hr-staff', value: 'HRDeskStaff' }],
    },
    storage: { conversationsTable: 'Conversations', turnsTable: 'Turns', retentionDays: 30 },
    model: {
      id: 'global.anthropic.claude-x-v1:0',
      dailyTokenBudget: 0,
      prices: { 'anthropic.claude-x-v1:0': { inputPerMillion: 3, outputPerMillion: 15 } },
      promptCaching: 'off',
      promptCacheModels: { 'offline.x': { minimumTokens: 1024, cacheTools: true } },
      guardrailIdentifier: 'gr1',
      guardrailVersion: '2',
    },
    knowledgeBase: {
      id: 'KB12345678',
      vectorStore: 's3-vectors',
      searchType: 'SEMANTIC',
      rerankingModelArn: 'arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0',
    },
    chat: { numberOfResults: 5, queryExpansion: false, allowedLinkDomains: ['example.co.jp'] },
    stream: { padding: 'after-pause', paddingBytes: 8192 },
    knowledge: {
      bucket: 'documents',
      dataSourceId: 'DS12345678',
      keyPrefix: 'tickets/mine/',
      ticketCategories: ['network', 'printers'],
      personalDataSettings: { dictionary: ['山田 太郎'] },
    },
    insights: { table: 'Insights', examples: false, gapScore: 0.25 },
    attachments: { bucket: 'attachments', keyPrefix: 'uploads/', readingMaxTokens: 400 },
    surges: {
      minStaff: 5,
      windowMinutes: 30,
      alerts: false,
      alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:alarms',
    },
    observability: { logLevel: 'DEBUG', metrics: false, tracing: true },
    ticketSync: {
      table: 'TicketSync',
      sources: [{ id: 'servicenow', system: 'servicenow', maxLagMinutes: 60 }],
    },
    endpoints: {
      region: 'eu-west-1',
      dynamoDb: 'http://127.0.0.1:8000',
      bedrockRuntime: 'http://127.0.0.1:8001',
      bedrockAgentRuntime: 'http://127.0.0.1:8002',
      bedrockAgent: 'http://127.0.0.1:8003',
      s3: 'http://127.0.0.1:8004',
    },
  } satisfies FunctionConfig;

  it('writes a variable for every setting, which reads back as the same grouped values', () => {
    const environment = functionEnvironment(everySetting);
    expect(Object.keys(environment).sort()).toEqual([...functionVariables].sort());
    expect(readFunctionConfig(environment)).toEqual(everySetting);
  });

  it('reads back what it wrote for the function’s own defaults', () => {
    const defaults = readFunctionConfig(required);
    expect(readFunctionConfig(functionEnvironment(defaults))).toEqual(defaults);
  });

  it('leaves unset what it is not given, so the function applies its one default', () => {
    expect(functionEnvironment({ model: { id: 'm', dailyTokenBudget: 0 } })).toEqual({
      MODEL_ID: 'm',
      DAILY_TOKEN_BUDGET: '0',
    });
    expect(readFunctionConfig(required).model.dailyTokenBudget).toBe(
      functionSettings.model.dailyTokenBudget.default,
    );
  });

  it('names each variable once', () => {
    expect(new Set(functionVariables).size).toBe(functionVariables.length);
  });

  it.each([
    'TOKEN_BATCH_MS',
    'GENERATION_LEASE_MS',
    'ARCHIVE_BUDGET_CHARS',
    'TURN_CACHE_MAX_BYTES',
    'HEARTBEAT_MS',
    'STOP_POLL_MS',
    'MAX_TOKENS',
    'FINE_GRAINED_TOOL_STREAMING',
    'KNOWLEDGE_FIRST_ISSUE_ID',
  ])('reads no %s: a constant of the function, not a setting', (variable) => {
    expect(functionVariables).not.toContain(variable);
  });
});
