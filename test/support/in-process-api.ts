import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { inject, vi } from 'vitest';
import type { HandlerOverrides } from '../../functions/api/aws-adapters.js';
import { createApi } from '../../functions/api/create-handler.js';
import { DEFAULT_VENDOR_LINK_DOMAINS } from '../../functions/contract/links.js';
import { readFunctionConfig } from '../../functions/settings/function-settings.js';
import {
  OFFLINE_MODEL_FUNCTION_SETTINGS,
  OFFLINE_MODEL_ID,
} from '../../local/bedrock/local-bedrock-defaults.js';
import {
  type LocalBedrockServer,
  type LocalBedrockServerOptions,
  startLocalBedrockServer,
} from '../../local/bedrock/start-local-bedrock-server.js';
import { toFunctionUrlEvent } from '../../local/function-url/function-url-event.js';
import type { LocalS3Server } from '../../local/s3/start-local-s3-server.js';
import { startLocalServices } from '../../local/start-local-stack.js';
import {
  type ApiCaller,
  type ChatCallOptions,
  type ChatResponse,
  readApiResponse,
} from './chat-client.js';
import { createInMemoryConversationStore } from './in-memory-conversation-store.js';
import { createInMemoryDailyBudget } from './in-memory-daily-budget.js';
import { TEST_FUNCTION_SETTINGS } from './test-function-settings.js';
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
  // Bytes (an attachment) go as they are, with the content type the caller's headers give.
  if (body instanceof Uint8Array) {
    const request = {
      method,
      url: path,
      httpVersion: '1.1',
      socket: { remoteAddress: '127.0.0.1' },
      headers: { ...(options.user ? { 'x-dev-user': options.user } : {}), ...options.headers },
    } as unknown as IncomingMessage;
    return toFunctionUrlEvent(request, Buffer.from(body));
  }
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

/** Options for {@link startInProcessApi}. */
export interface InProcessApiOptions {
  /**
   * Function settings over the test settings (`TEST_FUNCTION_SETTINGS`), as `startTestStack`'s
   * `functionEnvironment` (e.g. `{ DAILY_TOKEN_BUDGET: '1000' }`).
   */
  readonly functionEnvironment?: Record<string, string>;
  /**
   * `'memory'`: the in-memory conversation store and daily budget beside the local Bedrock
   * endpoint, nothing else. `'dynamodb'`: the local stack's own services (`startLocalServices`,
   * as `npm start` and `startTestStack` have them) — tables of its own on the run's DynamoDB
   * Local, the local S3 with knowledge capture's bucket, the local Bedrock endpoint indexing its
   * published folder — for rules that live in the store's conditions or in knowledge capture.
   * @default 'memory'
   */
  readonly store?: 'memory' | 'dynamodb';
  /**
   * The local stack's own environment variables (`DYNAMODB_ENDPOINT`, `S3_ENDPOINT`, …), as
   * `npm start` reads them; only with `store: 'dynamodb'`. @default the run's DynamoDB Local
   */
  readonly environment?: Record<string, string | undefined>;
  /** Options for the local Bedrock endpoint (pacing is off unless given). */
  readonly bedrockOptions?: LocalBedrockServerOptions;
  /** Adapter replacements, as `createHandler`'s overrides (a fixed retriever, a verifier), or shorter `timings`. */
  readonly overrides?: HandlerOverrides;
}

/** What {@link startInProcessApi} started. */
export interface InProcessApi {
  /** Pass it where the chat-client helpers take a target (`postChat(chat.api, …)`). */
  readonly api: ApiCaller;
  /** The local Bedrock endpoint the function's model and retriever adapters call. */
  readonly bedrock: LocalBedrockServer;
  /** The function's settings (environment variables) the API was built from. */
  readonly functionEnvironment: Readonly<Record<string, string>>;
  /** Closes what was started, deletes DynamoDB tables, restores the environment. */
  stop(): Promise<void>;
}

/** The in-process API on the local stack's services (`store: 'dynamodb'`). */
export interface InProcessApiOnLocalServices extends InProcessApi {
  /** The local S3 of knowledge capture, unless `S3_ENDPOINT` names another. */
  readonly s3?: LocalS3Server;
  readonly dynamoDbEndpoint: string;
}

/**
 * The API in process with the parts a rule needs and nothing else: the function's own wiring
 * (`createApi`) with its real Bedrock model and Knowledge Base adapters talking to an in-process
 * local Bedrock endpoint (the offline responder, scripts, recorded requests), and the in-memory
 * store or the local stack's services (`store`). The settings are `startTestStack`'s
 * (`TEST_FUNCTION_SETTINGS`), so a test moved here from the stack sees the same function. What
 * it leaves out — the runtime client, the Function URL front, execution environments — is what
 * the remaining stack tests are for. Calls go through the chat-client helpers.
 * @example
 * const chat = await startInProcessApi({ overrides: { timings: { heartbeatMs: 40 } } });
 * const response = await postChat(chat.api, { message: 'VPN' }, { user: 'alice' });
 * await chat.stop();
 */
export async function startInProcessApi(
  options: InProcessApiOptions & { readonly store: 'dynamodb' },
): Promise<InProcessApiOnLocalServices>;
export async function startInProcessApi(options?: InProcessApiOptions): Promise<InProcessApi>;
export async function startInProcessApi(
  options: InProcessApiOptions = {},
): Promise<InProcessApi | InProcessApiOnLocalServices> {
  const started =
    options.store === 'dynamodb'
      ? await startLocalServicesForApi(options)
      : await startBedrockForApi(options);
  const { functionEnvironment } = started;
  // The SDK clients in process read their credentials from this process's environment, as the
  // function's read them from its own; the local endpoints check no signature.
  vi.stubEnv('AWS_ACCESS_KEY_ID', functionEnvironment.AWS_ACCESS_KEY_ID ?? 'local');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', functionEnvironment.AWS_SECRET_ACCESS_KEY ?? 'local');
  const api = createInProcessApi(
    { ...functionEnvironment },
    {
      ...(options.store === 'dynamodb'
        ? {}
        : { store: createInMemoryConversationStore(), budget: createInMemoryDailyBudget().budget }),
      ...options.overrides,
    },
  );
  return {
    ...started,
    api,
    async stop() {
      await started.stop();
      vi.unstubAllEnvs();
    },
  };
}

/** The local stack's services, on the run's DynamoDB Local, with tables of their own. */
async function startLocalServicesForApi(
  options: InProcessApiOptions,
): Promise<Omit<InProcessApiOnLocalServices, 'api'>> {
  const endpoint = inject('dynamoDbEndpoint');
  if (!endpoint) throw new Error(inject('dynamoDbLocalError') ?? 'DynamoDB Local is not running');
  const services = await startLocalServices({
    responderPacing: { minMs: 0, maxMs: 0 },
    tablePrefix: `inproc-${randomUUID().slice(0, 8)}-`,
    log: () => undefined,
    bedrockOptions: options.bedrockOptions,
    environment: { DYNAMODB_ENDPOINT: endpoint, ...options.environment },
    functionEnvironment: { ...TEST_FUNCTION_SETTINGS, ...options.functionEnvironment },
  });
  const { bedrock } = services;
  if (!bedrock) {
    await services.stop();
    throw new Error('expected the local Bedrock endpoint');
  }
  return {
    bedrock,
    s3: services.s3,
    dynamoDbEndpoint: services.dynamoDbEndpoint,
    functionEnvironment: services.functionEnvironment,
    stop: () => services.stop(),
  };
}

/** The local Bedrock endpoint alone, and the function's settings pointing at it. */
async function startBedrockForApi(
  options: InProcessApiOptions,
): Promise<Omit<InProcessApi, 'api'>> {
  if (options.environment) {
    throw new Error("the local stack's environment needs store: 'dynamodb'");
  }
  const bedrock = await startLocalBedrockServer({
    pacing: { minMs: 0, maxMs: 0 },
    ...options.bedrockOptions,
  });
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
    ...TEST_FUNCTION_SETTINGS,
    ...options.functionEnvironment,
  };
  return { bedrock, functionEnvironment, stop: () => bedrock.close() };
}
