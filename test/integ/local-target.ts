import { randomUUID } from 'node:crypto';
import { BedrockAgentClient } from '@aws-sdk/client-bedrock-agent';
import { BedrockAgentRuntimeClient } from '@aws-sdk/client-bedrock-agent-runtime';
import { S3Client } from '@aws-sdk/client-s3';
import { createKnowledgeBaseRetriever } from '../../functions/adapters/bedrock/knowledge-base-retriever.js';
import { DEV_USER_HEADER } from '../../functions/api/resolve-owner.js';
import { API_TIMINGS } from '../../functions/api/route-context.js';
import type { Answer } from '../../functions/contract/answer.js';
import { readFunctionConfig } from '../../functions/settings/function-settings.js';
import { type LocalStack, startLocalStack } from '../../local/start-local-stack.js';
import { bundleTestHandler } from '../support/bundle-test-handler.js';
import {
  readTestTimings,
  TEST_API_HANDLER_ENTRY,
  testTimingsEnvironment,
} from '../support/test-timings.js';
import type { IntegTarget } from './integ-target.js';
import { createPublishedTicketRemoval } from './published-ticket-removal.js';

/**
 * The local stack as an acceptance-suite target (`npm run test:integ -- --local`): the dry run
 * that proves the suite's code paths on this machine. The same handler, SSE stream and Function
 * URL emulator as `npm start`, with the offline responder paced like a slow model so tokens
 * arrive over many reads, and a short heartbeat so the long-answer check takes seconds.
 *
 * What cannot be proven here is reported as not applicable: the emulator has no IAM
 * authentication, so there is no CloudFront signature to leave out.
 */

/**
 * Short, so the long-answer check sees its heartbeats in seconds; not shorter, because the check
 * fails a gap over two intervals as held back on the way, and on two saturated cores a local
 * heartbeat arrived 706 ms after the one before when written 250 ms apart (a busy machine, not a
 * buffer: a buffering front delivers the silent phase's heartbeats in one burst, which the span
 * check catches).
 */
export const LOCAL_HEARTBEAT_MS = 1_000;
/** Heartbeats must be seen arriving over this many intervals… */
const LOCAL_SPAN_HEARTBEATS = 6;
/** …while the scripted model stays silent for this many before its first token. */
const LOCAL_SILENT_HEARTBEATS = 8;

/** The function environment the suite expects of a local stack it starts. */
export const localTargetFunctionEnvironment: Readonly<Record<string, string>> = {
  // Read by the test handler entry only (test/support/test-api-handler.ts), which the suite runs.
  ...testTimingsEnvironment({ heartbeatMs: LOCAL_HEARTBEAT_MS, stopPollMs: 50 }),
  LOG_LEVEL: 'SILENT',
  METRICS: 'false',
  // The suite runs a few dozen chats as one user.
  DAILY_TOKEN_BUDGET: '0',
};

/** Per-fragment delay of the offline responder: a few ms, so an answer spans many reads. */
export const localTargetPacing = { minMs: 1, maxMs: 4 } as const;

/**
 * Starts a local stack (its own in-memory DynamoDB Local, or DYNAMODB_ENDPOINT) for `--local`,
 * running the test handler entry: the production handler with the short heartbeat above.
 */
export async function startLocalTargetStack(): Promise<LocalStack> {
  return startLocalStack({
    port: 0,
    handlerBundle: await bundleTestHandler(TEST_API_HANDLER_ENTRY),
    responderPacing: localTargetPacing,
    tablePrefix: `integ-${randomUUID().slice(0, 8)}-`,
    functionEnvironment: { ...localTargetFunctionEnvironment },
    log: () => undefined,
  });
}

/** A quiet `results` answer with no ticket cards: only its timing matters to the check. */
const longAnswerScript: Answer = {
  response_type: 'results',
  general_advice:
    '## 対処方法\nVPNクライアントを再起動し、証明書の有効期限を確認してください。\n' +
    '- 社内ネットワークと自宅の両方で試す\n- エラー番号を控える\n',
  results: [],
  mail_draft: 'お疲れ様です。VPNの件、確認手順をお送りします。',
  todo_actions: ['VPNクライアントを再起動する', '証明書の有効期限を確認する'],
};

export function openLocalTarget(stack: LocalStack): IntegTarget {
  const environment = stack.functionEnvironment;
  const heartbeatMs = readTestTimings(environment).heartbeatMs ?? API_TIMINGS.heartbeatMs;
  const user = `integ-${randomUUID()}`;
  const { bedrock } = stack;
  const text = JSON.stringify(longAnswerScript);
  const fragments = text.match(/[\s\S]{1,16}/g) ?? [text];
  return {
    kind: 'local',
    label: `local stack at ${stack.url} (model ${environment.MODEL_ID})`,
    api: (method, path, body) =>
      fetch(new URL(`/api/${path}`, stack.url), {
        method,
        headers: {
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          [DEV_USER_HEADER]: user,
        },
        body,
        signal: AbortSignal.timeout(120_000),
      }),
    heartbeatMs,
    longAnswer: bedrock
      ? {
          message: 'VPNに接続できない原因と対処を詳しく教えてください',
          minSpanMs: LOCAL_SPAN_HEARTBEATS * heartbeatMs,
          prepare: () =>
            bedrock.enqueueScript({
              kind: 'stream',
              fragments,
              initialDelayMs: LOCAL_SILENT_HEARTBEATS * heartbeatMs,
              delayMs: 2,
            }),
          how: `a scripted model silent for ${LOCAL_SILENT_HEARTBEATS} heartbeat intervals (${LOCAL_SILENT_HEARTBEATS * heartbeatMs} ms) before its first token`,
        }
      : {
          // Real Bedrock behind the local stack: the AWS request, the AWS span.
          message:
            'VPNに接続できない原因と対処を、Windows と Mac の両方について詳しく説明してください',
          minSpanMs: 60_000,
          how: 'a request for a long answer (the local stack uses real Bedrock)',
        },
    retriever: createKnowledgeBaseRetriever({
      client: new BedrockAgentRuntimeClient({
        endpoint: environment.BEDROCK_AGENT_RUNTIME_ENDPOINT,
        region: environment.AWS_REGION ?? 'us-east-1',
        ...(environment.AWS_ACCESS_KEY_ID === 'local'
          ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
          : {}),
      }),
      knowledgeBaseId: environment.KNOWLEDGE_BASE_ID ?? '',
    }),
    // The local Knowledge Base plays OpenSearch Serverless (the default store).
    vectorStore: 'opensearch-serverless',
    retrieverLabel: `Knowledge Base ${environment.KNOWLEDGE_BASE_ID} (${environment.BEDROCK_AGENT_RUNTIME_ENDPOINT ?? 'Amazon Bedrock'})`,
    // As the function reads it: the stack's setting, else the function's default.
    queryExpansion: readFunctionConfig(environment).chat.queryExpansion,
    ...localKnowledge(environment),
    notApplicable: {
      'function-url-unsigned':
        'the local Function URL emulator has no IAM authentication and no CloudFront in front, so there is no signature to leave out',
      ...(environment.KNOWLEDGE_BUCKET && environment.KNOWLEDGE_DATA_SOURCE_ID
        ? {}
        : {
            'knowledge-capture':
              'the local stack has no Knowledge Base document bucket (KNOWLEDGE_BUCKET, KNOWLEDGE_DATA_SOURCE_ID)',
          }),
    },
    close: async () => {},
  };
}

/**
 * Knowledge capture against the local S3 and ingestion endpoints the stack's function writes to:
 * a publish is retrievable at once there, so a few seconds is the limit.
 */
function localKnowledge(
  environment: Readonly<Record<string, string>>,
): Pick<IntegTarget, 'knowledge'> {
  const bucket = environment.KNOWLEDGE_BUCKET;
  const dataSourceId = environment.KNOWLEDGE_DATA_SOURCE_ID;
  if (!bucket || !dataSourceId) return {};
  const region = environment.AWS_REGION ?? 'us-east-1';
  const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  return {
    knowledge: {
      searchableWithinMs: 10_000,
      removePublished: createPublishedTicketRemoval({
        s3: new S3Client({
          endpoint: environment.S3_ENDPOINT,
          forcePathStyle: true,
          region,
          credentials,
        }),
        agent: new BedrockAgentClient({
          endpoint: environment.BEDROCK_AGENT_ENDPOINT,
          region,
          credentials,
        }),
        bucket,
        keyPrefix: environment.KNOWLEDGE_KEY_PREFIX ?? 'tickets/published/',
        knowledgeBaseId: environment.KNOWLEDGE_BASE_ID ?? '',
        dataSourceId,
      }),
    },
  };
}
