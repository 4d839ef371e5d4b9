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
