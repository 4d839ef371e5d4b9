import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { readLocalStackEnvironment } from '../../local/local-stack-environment.js';
import { startLocalStack } from '../../local/start-local-stack.js';
import { eventsNamed, postChat } from '../support/chat-client.js';

describe('readLocalStackEnvironment', () => {
  it("passes the function's own settings through as they are", () => {
    const settings = {
      DAILY_TOKEN_BUDGET: '2000',
      NUMBER_OF_RESULTS: '4',
      LOG_LEVEL: 'DEBUG',
      METRICS: 'false',
      PROMPT_CACHING: 'off',
      TENANT_ID: 'acme',
      KNOWLEDGE_EDITORS: 'alice,bob',
    };
    const { functionSettings } = readLocalStackEnvironment({
      ...settings,
      // Not the function's: a shell's variables, and a knob that is a constant now, stay out.
      MAX_TOKENS: '4096',
      HOME: '/home/someone',
      EDITOR: 'vi',
    });
    expect(functionSettings).toEqual(settings);
  });

  it('keeps the settings the local stack derives itself out of the pass-through', () => {
    const { functionSettings } = readLocalStackEnvironment({
      AUTH_MODE: 'oidc',
      OIDC_ISSUER: 'https://login.example.com',
      CONVERSATIONS_TABLE: 'someone-elses',
      TURNS_TABLE: 'someone-elses',
      BEDROCK_RUNTIME_ENDPOINT: 'aws',
      MODEL_ID: 'offline.service-desk-responder',
    });
    expect(functionSettings).toEqual({});
  });

  it('reads AUTH_MODE instead of dropping it, and refuses a mode npm start cannot run', () => {
    expect(readLocalStackEnvironment({}).authMode).toBe('local');
    expect(
      readLocalStackEnvironment({
        AUTH_MODE: 'oidc',
        OIDC_ISSUER: 'https://login.example.com',
        OIDC_AUDIENCE: 'spa-client, suite',
      }),
    ).toMatchObject({
      authMode: 'oidc',
      oidcIssuer: 'https://login.example.com',
      oidcClientId: 'spa-client',
    });
    expect(() => readLocalStackEnvironment({ AUTH_MODE: 'cognito' })).toThrow(/AUTH_MODE=cognito/);
  });
});

describe('startLocalStack', () => {
  it('gives the function the settings of its environment: DAILY_TOKEN_BUDGET refuses the second chat', async () => {
    const dynamoDbEndpoint = inject('dynamoDbEndpoint');
    if (!dynamoDbEndpoint) throw new Error(inject('dynamoDbLocalError') ?? 'no DynamoDB Local');
    const stack = await startLocalStack({
      port: 0,
      responderPacing: { minMs: 0, maxMs: 0 },
      tablePrefix: `environment-${randomUUID().slice(0, 8)}-`,
      handlerBundle: inject('apiHandlerBundle'),
      // As `DAILY_TOKEN_BUDGET=1000 npm start` sees it: one offline answer costs more than that.
      environment: {
        DYNAMODB_ENDPOINT: dynamoDbEndpoint,
        DAILY_TOKEN_BUDGET: '1000',
        LOG_LEVEL: 'SILENT',
        METRICS: 'false',
      },
      log: () => undefined,
    });
    try {
      expect(stack.functionEnvironment.DAILY_TOKEN_BUDGET).toBe('1000');
      const first = await postChat(stack.url, { message: 'VPNにつながらない' });
      expect(eventsNamed(first, 'result')).toHaveLength(1);
      const second = await postChat(stack.url, { message: 'プリンターが動かない' });
      expect(second.status).toBe(429);
      expect(second.json).toMatchObject({ error: { code: 'daily_budget_exceeded' } });
    } finally {
      await stack.stop();
    }
  });

  it('refuses to start with a bad function setting, naming it', async () => {
    const dynamoDbEndpoint = inject('dynamoDbEndpoint');
    const starting = startLocalStack({
      port: 0,
      tablePrefix: `environment-${randomUUID().slice(0, 8)}-`,
      handlerBundle: inject('apiHandlerBundle'),
      environment: { DYNAMODB_ENDPOINT: dynamoDbEndpoint, DAILY_TOKEN_BUDGET: 'lots' },
      log: () => undefined,
    });
    // A stack that did start is stopped, so a failure here leaves nothing running.
    const outcome = await starting.then(
      (stack) => stack.stop().then(() => new Error('it started')),
      (error: Error) => error,
    );
    expect(outcome.message).toMatch(/Invalid function configuration — DAILY_TOKEN_BUDGET/);
  });
});
