import { describe, expect, it } from 'vitest';
import { guardrailOf, readFunctionConfig } from '../../functions/api/function-config.js';
import { defaultChatConfig } from '../../functions/chat/ports.js';
import { DEFAULT_VENDOR_LINK_DOMAINS } from '../../functions/contract/links.js';

const required = {
  AUTH_MODE: 'local',
  CONVERSATIONS_TABLE: 'Conversations',
  TURNS_TABLE: 'Turns',
  KNOWLEDGE_BASE_ID: 'KB',
  MODEL_ID: 'model',
};

describe('readFunctionConfig', () => {
  it('gives the model 8192 output tokens per answer unless MAX_TOKENS says otherwise', () => {
    expect(readFunctionConfig(required).MAX_TOKENS).toBe(8192);
    expect(defaultChatConfig.maxTokens).toBe(8192);
    expect(readFunctionConfig({ ...required, MAX_TOKENS: '2048' }).MAX_TOKENS).toBe(2048);
    expect(() => readFunctionConfig({ ...required, MAX_TOKENS: '100' })).toThrow(/MAX_TOKENS/);
  });

  it('reads a guardrail from GUARDRAIL_IDENTIFIER and GUARDRAIL_VERSION, both or neither', () => {
    expect(guardrailOf(readFunctionConfig(required))).toBeUndefined();
    expect(
      guardrailOf(
        readFunctionConfig({
          ...required,
          GUARDRAIL_IDENTIFIER: 'gr1',
          GUARDRAIL_VERSION: 'DRAFT',
        }),
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
    expect(readFunctionConfig(required).ALLOWED_LINK_DOMAINS).toEqual([
      ...DEFAULT_VENDOR_LINK_DOMAINS,
    ]);
    expect(
      readFunctionConfig({ ...required, ALLOWED_LINK_DOMAINS: 'example.co.jp, aka.ms' })
        .ALLOWED_LINK_DOMAINS,
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
    expect(readFunctionConfig(required)).toMatchObject({ VECTOR_STORE: 'opensearch-serverless' });
    expect(readFunctionConfig(required).SEARCH_TYPE).toBeUndefined();
    expect(
      readFunctionConfig({ ...required, VECTOR_STORE: 's3-vectors', SEARCH_TYPE: 'SEMANTIC' }),
    ).toMatchObject({ VECTOR_STORE: 's3-vectors', SEARCH_TYPE: 'SEMANTIC' });
    expect(() =>
      readFunctionConfig({ ...required, VECTOR_STORE: 's3-vectors', SEARCH_TYPE: 'HYBRID' }),
    ).toThrow(/SEARCH_TYPE: HYBRID search needs .* s3-vectors is semantic only/);
    expect(() => readFunctionConfig({ ...required, VECTOR_STORE: 'pinecone' })).toThrow(
      /VECTOR_STORE/,
    );
  });

  it('reads MODEL_PRICES (the modelPrices setting) as JSON prices, and refuses malformed ones', () => {
    expect(readFunctionConfig(required).MODEL_PRICES).toEqual({});
    const prices = { 'anthropic.claude-x-v1:0': { inputPerMillion: 3, outputPerMillion: 15 } };
    expect(
      readFunctionConfig({ ...required, MODEL_PRICES: JSON.stringify(prices) }).MODEL_PRICES,
    ).toEqual(prices);
    expect(() => readFunctionConfig({ ...required, MODEL_PRICES: '{nope' })).toThrow(
      /MODEL_PRICES must be JSON/,
    );
    expect(() =>
      readFunctionConfig({ ...required, MODEL_PRICES: '{"m.x":{"inputPerMillion":3}}' }),
    ).toThrow(/MODEL_PRICES/);
  });

  it('reads RERANKING_MODEL_ARN as a foundation-model ARN, empty meaning no reranking', () => {
    expect(readFunctionConfig(required).RERANKING_MODEL_ARN).toBeUndefined();
    expect(readFunctionConfig({ ...required, RERANKING_MODEL_ARN: '' }).RERANKING_MODEL_ARN).toBe(
      undefined,
    );
    const arn = 'arn:aws:bedrock:us-west-2::foundation-model/amazon.rerank-v1:0';
    expect(readFunctionConfig({ ...required, RERANKING_MODEL_ARN: arn }).RERANKING_MODEL_ARN).toBe(
      arn,
    );
    expect(() =>
      readFunctionConfig({ ...required, RERANKING_MODEL_ARN: 'amazon.rerank-v1:0' }),
    ).toThrow(/RERANKING_MODEL_ARN must be a Bedrock foundation-model ARN/);
  });

  it('reads PERSONAL_DATA_SETTINGS as scrub settings, none when unset, and names a bad field', () => {
    expect(readFunctionConfig(required).PERSONAL_DATA_SETTINGS).toEqual({});
    expect(
      readFunctionConfig({ ...required, PERSONAL_DATA_SETTINGS: '{"dictionary":["山田 太郎"]}' })
        .PERSONAL_DATA_SETTINGS,
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
    expect(readFunctionConfig({ ...required, TENANT_ID: 'acme-eu_1.prod' }).TENANT_ID).toBe(
      'acme-eu_1.prod',
    );
  });

  it('caches prompts where the model supports it unless PROMPT_CACHING is off', () => {
    expect(readFunctionConfig(required).PROMPT_CACHING).toBe('auto');
    expect(readFunctionConfig({ ...required, PROMPT_CACHING: 'off' }).PROMPT_CACHING).toBe('off');
    expect(() => readFunctionConfig({ ...required, PROMPT_CACHING: 'on' })).toThrow(
      /PROMPT_CACHING/,
    );
  });
});
