import { mkdtemp, rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { vi } from 'vitest';
import { createApi, type HandlerOverrides } from '../../functions/api/create-handler.js';
import { DEFAULT_VENDOR_LINK_DOMAINS } from '../../functions/contract/links.js';
import { readFunctionConfig } from '../../functions/settings/function-settings.js';
import {
  LOCAL_KNOWLEDGE_BUCKET,
  OFFLINE_MODEL_FUNCTION_SETTINGS,
  OFFLINE_MODEL_ID,
} from '../../local/bedrock/local-bedrock-defaults.js';
import {
  type LocalBedrockServer,
  type LocalBedrockServerOptions,
  startLocalBedrockServer,
} from '../../local/bedrock/start-local-bedrock-server.js';
import { toFunctionUrlEvent } from '../../local/function-url/function-url-event.js';
import { startLocalS3Server } from '../../local/s3/start-local-s3-server.js';
import {
  type ApiCaller,
  type ChatCallOptions,
  type ChatResponse,
  readApiResponse,
} from './chat-client.js';
import { createTestTables } from './dynamodb-test-tables.js';
import { createInMemoryConversationStore } from './in-memory-conversation-store.js';
import { createInMemoryDailyBudget } from './in-memory-daily-budget.js';
import { TEST_TIMINGS } from './test-timings.js';

/**
 * The API function's own routing, adapters and error handling called in process — no runtime
 * client, no Function URL front, no child processes — for rules that only the API shows. The
 * settings are the function's environment variables (`readFunctionConfig`), so a test exercises
 * the same wiring a deployment does; `overrides` replace adapters as in the test handlers, and
 * the timings are the tests' (`TEST_TIMINGS`) unless `overrides.timings` says otherwise.
 * @example
 * const api = createInProcessApi({ MODEL_ID: 'offline.x', BEDROCK_RUNTIME_ENDPOINT: url });
 * const response = await api.call('POST', '/api/chat', { message: 'VPN' }, { user: 'alice' });
 */
export function createInProcessApi(
  environment: Record<string, string>,
  overrides: HandlerOverrides = {},
) {
  const api = createApi(
    readFunctionConfig({
      AUTH_MODE: 'local',
      CONVERSATIONS_TABLE: 'Conversations',
      TURNS_TABLE: 'Turns',
      KNOWLEDGE_BASE_ID: 'LOCALKB001',
      METRICS: 'false',
      LOG_LEVEL: 'WARN',
      ...environment,
    }),
    { ...overrides, timings: { ...TEST_TIMINGS, ...overrides.timings } },
  );
  let requests = 0;
  return {
    async call(
      method: string,
      path: string,
      body?: unknown,
      options: ChatCallOptions = {},
    ): Promise<ChatResponse> {
      requests += 1;
      const response = await api(
        functionUrlEvent(method, path, body, options),
        lambdaContext(`in-process-${requests}`),
      );
      // A 204 or 304 has no body: the Response constructor refuses even an empty one.
      const responseBody = NULL_BODY_STATUSES.has(response.statusCode) ? null : response.body;
      return readApiResponse(
        new Response(responseBody, { status: response.statusCode, headers: response.headers }),
        options,
      );
    },
  };
}

/** Statuses whose responses carry no body (fetch spec, "null body status"). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * The Function URL (payload v2) event for a request, built by the local Function URL front's own
 * `toFunctionUrlEvent` from the parts of an HTTP request it reads.
 */
function functionUrlEvent(
  method: string,
  path: string,
  body: unknown,
  options: ChatCallOptions,
): APIGatewayProxyEventV2 {
  const rawBody =
    body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const request = {
    method,
    url: path,
    httpVersion: '1.1',
    socket: { remoteAddress: '127.0.0.1' },
    headers: {
      ...(rawBody === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.user ? { 'x-dev-user': options.user } : {}),
      ...options.headers,
    },
  } as unknown as IncomingMessage;
  return toFunctionUrlEvent(request, Buffer.from(rawBody ?? ''));
}

function lambdaContext(awsRequestId: string): Context {
  return {
    awsRequestId,
    getRemainingTimeInMillis: () => 60_000,
  } as Context;
}

/** Options for {@link startInProcessChatApi}. */
export interface InProcessChatApiOptions {
  /**
   * Function settings over the test defaults below, as `startTestStack`'s `functionEnvironment`
   * (e.g. `{ DAILY_TOKEN_BUDGET: '1000' }`).
   */
  readonly functionEnvironment?: Record<string, string>;
  /**
   * `'memory'`: the in-memory conversation store and daily budget. `'dynamodb'`: the function's
   * own DynamoDB adapters on fresh tables of the run's DynamoDB Local, for rules that live in
   * the store's conditions. @default 'memory'
   */
  readonly store?: 'memory' | 'dynamodb';
  /**
   * Knowledge capture's documents too: a local S3 bucket whose published folder the local
   * Bedrock endpoint indexes, as `startLocalStack` has it (`KNOWLEDGE_BUCKET`). Needs
   * `store: 'dynamodb'` (ticket numbers and the sync backlog live there). @default false
   */
  readonly knowledgeDocuments?: boolean;
  /** Options for the local Bedrock endpoint (pacing is off unless given). */
  readonly bedrockOptions?: LocalBedrockServerOptions;
  /** Adapter replacements beside the store, e.g. a fixed retriever, or shorter `timings`. */
  readonly overrides?: HandlerOverrides;
}

/** What {@link startInProcessChatApi} started. */
export interface InProcessChatApi {
  /** Pass it where the chat-client helpers take a base URL (`postChat(chat.api, …)`). */
  readonly api: ApiCaller;
  /** The local Bedrock endpoint the function's model and retriever adapters call. */
  readonly bedrock: LocalBedrockServer;
  /** The function's settings (environment variables) the API was built from. */
  readonly functionEnvironment: Readonly<Record<string, string>>;
  /** Closes the Bedrock endpoint, deletes DynamoDB tables, restores the environment. */
  stop(): Promise<void>;
}

/**
 * The chat API in process with the parts a chat rule needs and nothing else: the function's own
 * wiring (`createApi`) with its real Bedrock model and Knowledge Base adapters talking to an
 * in-process local Bedrock endpoint (the offline responder, scripts, recorded requests), and the
 * in-memory store or DynamoDB Local. The settings are `startTestStack`'s, so a test moved here
 * from the stack sees the same function: short stop poll, no budget, no metrics.
 * What it leaves out — the runtime client, the Function URL front, execution environments — is
 * what the remaining stack tests are for.
 * @example
 * const chat = await startInProcessChatApi({ overrides: { timings: { heartbeatMs: 40 } } });
 * const response = await postChat(chat.api, { message: 'VPN' }, { user: 'alice' });
 * await chat.stop();
 */
export async function startInProcessChatApi(
  options: InProcessChatApiOptions = {},
): Promise<InProcessChatApi> {
  // The SDK's default credential chain, as in the function; the local endpoints check no signature.
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'local');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'local');
  const cleanups: (() => Promise<unknown>)[] = [];
  const s3 = options.knowledgeDocuments ? await startKnowledgeBucket(cleanups) : undefined;
  const bedrock = await startLocalBedrockServer({
    pacing: { minMs: 0, maxMs: 0 },
    ...(s3 && {
      publishedDir: join(
        s3.server.root,
        LOCAL_KNOWLEDGE_BUCKET,
        ...KNOWLEDGE_KEY_PREFIX.split('/'),
      ),
      publishedUriPrefix: `s3://${LOCAL_KNOWLEDGE_BUCKET}/${KNOWLEDGE_KEY_PREFIX}`,
    }),
    ...options.bedrockOptions,
  });
  cleanups.push(() => bedrock.close());
  const tables = options.store === 'dynamodb' ? await createTestTables('in-process') : undefined;
  if (tables) cleanups.push(() => tables.dispose());
  const functionEnvironment: Record<string, string> = {
    TENANT_ID: 'local',
    AWS_REGION: 'local',
    MODEL_ID: OFFLINE_MODEL_ID,
    ...OFFLINE_MODEL_FUNCTION_SETTINGS,
    KNOWLEDGE_BASE_ID: bedrock.knowledgeBaseId,
    BEDROCK_RUNTIME_ENDPOINT: bedrock.runtimeEndpoint,
    BEDROCK_AGENT_RUNTIME_ENDPOINT: bedrock.agentRuntimeEndpoint,
    BEDROCK_AGENT_ENDPOINT: bedrock.agentEndpoint,
    ALLOWED_LINK_DOMAINS: ['example.co.jp', ...DEFAULT_VENDOR_LINK_DOMAINS].join(','),
    ...(s3
      ? {
          S3_ENDPOINT: s3.server.endpoint,
          KNOWLEDGE_BUCKET: LOCAL_KNOWLEDGE_BUCKET,
          KNOWLEDGE_DATA_SOURCE_ID: bedrock.dataSourceId,
          KNOWLEDGE_KEY_PREFIX,
        }
      : {}),
    ...(tables
      ? {
          DYNAMODB_ENDPOINT: tables.endpoint,
          CONVERSATIONS_TABLE: tables.tables.conversations,
          TURNS_TABLE: tables.tables.turns,
        }
      : {}),
    // As startTestStack: tests run many chats per user.
    LOG_LEVEL: 'SILENT',
    DAILY_TOKEN_BUDGET: '0',
    METRICS: 'false',
    ...options.functionEnvironment,
  };
  const api = createInProcessApi(functionEnvironment, {
    ...(tables
      ? {}
      : { store: createInMemoryConversationStore(), budget: createInMemoryDailyBudget().budget }),
    ...options.overrides,
  });
  return {
    api,
    bedrock,
    functionEnvironment,
    async stop() {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
      vi.unstubAllEnvs();
    },
  };
}

/** Where publishing writes tickets in the bucket, as in `startLocalStack`. */
const KNOWLEDGE_KEY_PREFIX = 'tickets/published/';

/** The local S3 with the Knowledge Base's document bucket, in a temporary folder. */
async function startKnowledgeBucket(cleanups: (() => Promise<unknown>)[]) {
  const root = await mkdtemp(join(tmpdir(), 'in-process-s3-'));
  cleanups.push(() => rm(root, { recursive: true, force: true }));
  const server = await startLocalS3Server({ root, buckets: [LOCAL_KNOWLEDGE_BUCKET] });
  cleanups.push(() => server.close());
  return { server };
}
