import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEFAULT_VENDOR_LINK_DOMAINS } from '../functions/contract/links.js';
import { readFunctionConfig } from '../functions/settings/function-settings.js';
import { readTicketCategories } from '../lib/ticket-categories.js';
import { ensureApiHandlerBundle } from '../scripts/bundle-api-handler.js';
import {
  isOfflineModelId,
  LOCAL_ATTACHMENTS_BUCKET,
  LOCAL_KNOWLEDGE_BUCKET,
  OFFLINE_MODEL_FUNCTION_SETTINGS,
} from './bedrock/local-bedrock-defaults.js';
import {
  type LocalBedrockServer,
  type LocalBedrockServerOptions,
  startLocalBedrockServer,
} from './bedrock/start-local-bedrock-server.js';
import { createTables } from './create-tables.js';
import { type DynamoDbLocal, startDynamoDbLocal } from './dynamodb-local.js';
import { startFunctionUrlServer } from './function-url/start-function-url-server.js';
import { LocalLambdaFunction } from './lambda/local-lambda-function.js';
import {
  type LocalStackEnvironment,
  readLocalStackEnvironment,
} from './local-stack-environment.js';
import { type LocalS3Server, startLocalS3Server } from './s3/start-local-s3-server.js';

/** The function's default `KNOWLEDGE_KEY_PREFIX` (functions/settings/function-settings.ts). */
const DEFAULT_KNOWLEDGE_KEY_PREFIX = 'tickets/published/';

export interface LocalStackOptions {
  /** @default PORT or 3000; 0 picks a free port */
  readonly port?: number;
  /** DynamoDB Local's data directory; undefined keeps it in memory (tests). */
  readonly dataDir?: string;
  /**
   * The local S3's root (objects are files `<root>/<bucket>/<key>`), kept across runs; undefined:
   * a temporary directory removed on stop (tests).
   */
  readonly s3Dir?: string;
  /** Offline responder pacing. @default realistic; `{ minMs: 0, maxMs: 0 }` in tests */
  readonly responderPacing?: { readonly minMs: number; readonly maxMs: number };
  /** Passed to the local Bedrock endpoint as they are (e.g. `onFragmentSent` in benchmarks); win over `responderPacing`. */
  readonly bedrockOptions?: LocalBedrockServerOptions;
  /** Built web app to serve. @default 'web/dist' */
  readonly webDir?: string;
  /**
   * The bundled handler module (`.mjs`, exporting `handler`) the execution environments load.
   * @default the API handler, bundled into `.data/build/api/handler.mjs` when stale
   */
  readonly handlerBundle?: string;
  /** The function timeout. @default 300_000, as deployed */
  readonly functionTimeoutMs?: number;
  /** Concurrent execution environments at most. @default 10 */
  readonly maxEnvironments?: number;
  /**
   * Environments initialised at start (provisioned concurrency). @default 0: every environment
   * is created on demand, with its cold start, as the deployed function's are
   */
  readonly provisionedEnvironments?: number;
  /** Where the function's stdout and stderr go. @default this process's */
  readonly functionOutput?: {
    readonly stdout: NodeJS.WritableStream;
    readonly stderr: NodeJS.WritableStream;
  };
  /** X-Ray active tracing: sampled trace headers (the tracing test). @default false */
  readonly activeTracing?: boolean;
  /**
   * Extra function environment (e.g. `LOG_LEVEL`, or the test handler entry's timings); wins
   * over the function settings `environment` holds.
   */
  readonly functionEnvironment?: Record<string, string>;
  /**
   * `npm start`'s variables (`readLocalStackEnvironment`): endpoints, ids, and the function's
   * own settings, passed to it. @default process.env
   */
  readonly environment?: Record<string, string | undefined>;
  /** Prefix of the table names, so test files can share one DynamoDB. @default 'local-' */
  readonly tablePrefix?: string;
  readonly log?: (message: string) => void;
}

export interface LocalStack {
  readonly url: string;
  /** The local Bedrock endpoint, unless real or external endpoints were configured. */
  readonly bedrock?: LocalBedrockServer;
  /** The local S3 holding the Knowledge Base's document bucket, unless S3 is elsewhere. */
  readonly s3?: LocalS3Server;
  readonly dynamoDbEndpoint: string;
  readonly functionEnvironment: Readonly<Record<string, string>>;
  /** The function's execution environments (cold starts, for tests). */
  readonly function: LocalLambdaFunction;
  stop(): Promise<void>;
}

/** The services the function talks to, started for it, and the environment it runs with. */
export interface LocalServices {
  /** The local Bedrock endpoint, unless real or external endpoints were configured. */
  readonly bedrock?: LocalBedrockServer;
  /** The local S3 holding the Knowledge Base's document bucket, unless S3 is elsewhere. */
  readonly s3?: LocalS3Server;
  readonly dynamoDbEndpoint: string;
  /** The function's environment variables, checked by `readFunctionConfig`. */
  readonly functionEnvironment: Readonly<Record<string, string>>;
  stop(): Promise<void>;
}

/**
 * Everything of the local stack but the function: DynamoDB Local (or the configured endpoint)
 * with its tables, the local S3 and Bedrock endpoints, and the function's environment pointing
 * at them. `startLocalStack` runs the bundled handler on top; the in-process API tests call the
 * API with the same environment (`startInProcessApi` in test/support/in-process-api.ts).
 */
export async function startLocalServices(
  options: Omit<
    LocalStackOptions,
    | 'port'
    | 'webDir'
    | 'handlerBundle'
    | 'functionTimeoutMs'
    | 'maxEnvironments'
    | 'provisionedEnvironments'
    | 'functionOutput'
    | 'activeTracing'
  > = {},
): Promise<LocalServices> {
  const environment = readLocalStackEnvironment(options.environment ?? process.env);
  const cleanups: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const localKnowledgeBase =
      needsLocalBedrock(environment) && !environment.bedrockAgentRuntimeEndpoint;
    const ticketsDir = options.bedrockOptions?.ticketsDir ?? environment.ticketsDir;
    // The served folder's categories are knowledge capture's choices (ADR 0020); reading them
    // first also stops a missing or empty TICKETS_DIR before anything starts, with its name.
    const ticketCategories = localKnowledgeBase ? readTicketCategories(ticketsDir) : undefined;
    const dynamo = await startDynamo(environment, options.dataDir);
    if (dynamo.local) cleanups.push(() => dynamo.local?.stop() ?? Promise.resolve());
    const s3 = await startS3(environment, localKnowledgeBase, options.s3Dir, cleanups);
    const knowledgeKeyPrefix = environment.knowledgeKeyPrefix ?? DEFAULT_KNOWLEDGE_KEY_PREFIX;
    const bedrock = needsLocalBedrock(environment)
      ? await startLocalBedrockServer({
          pacing: options.responderPacing,
          ticketsDir,
          ...(s3 && {
            publishedDir: join(s3.server.root, s3.bucket, ...knowledgeKeyPrefix.split('/')),
            publishedUriPrefix: `s3://${s3.bucket}/${knowledgeKeyPrefix}`,
          }),
          ...options.bedrockOptions,
        })
      : undefined;
    if (bedrock) cleanups.push(() => bedrock.close());
    const knowledgeBucket = environment.knowledgeBucket ?? s3?.bucket;
    const knowledgeDataSourceId =
      environment.knowledgeDataSourceId ?? (localKnowledgeBase ? bedrock?.dataSourceId : undefined);
    const credentials = localCredentials();
    const tables = await createTables(
      new DynamoDBClient({ endpoint: dynamo.endpoint, region: environment.region, credentials }),
      options.tablePrefix ?? 'local-',
    );
    const functionEnvironment: Record<string, string> = {
      AUTH_MODE: 'local',
      TENANT_ID: 'local',
      AWS_REGION: environment.region,
      CONVERSATIONS_TABLE: tables.conversations,
      TURNS_TABLE: tables.turns,
      // Service-desk insights (ADR 0022): the local stack records them as a deployment does.
      INSIGHTS_TABLE: tables.insights,
      MODEL_ID: environment.modelId,
      // The emulator's price and prompt caching: production tables do not list it.
      ...(isOfflineModelId(environment.modelId) ? OFFLINE_MODEL_FUNCTION_SETTINGS : {}),
      KNOWLEDGE_BASE_ID:
        bedrock && !environment.bedrockAgentRuntimeEndpoint
          ? bedrock.knowledgeBaseId
          : environment.knowledgeBaseId,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      ...endpointVariable(
        'BEDROCK_RUNTIME_ENDPOINT',
        environment.bedrockRuntimeEndpoint,
        bedrock?.runtimeEndpoint,
      ),
      ...endpointVariable(
        'BEDROCK_AGENT_RUNTIME_ENDPOINT',
        environment.bedrockAgentRuntimeEndpoint,
        bedrock?.agentRuntimeEndpoint,
      ),
      ...endpointVariable(
        'BEDROCK_AGENT_ENDPOINT',
        environment.bedrockAgentEndpoint,
        bedrock?.agentEndpoint,
      ),
      ...endpointVariable('S3_ENDPOINT', environment.s3Endpoint, s3?.server.endpoint),
      // Both or neither: the function refuses a bucket without the data source to sync, and
      // without a bucket publishing answers 501 (a real Knowledge Base whose bucket is not given).
      ...(knowledgeBucket && knowledgeDataSourceId
        ? { KNOWLEDGE_BUCKET: knowledgeBucket, KNOWLEDGE_DATA_SOURCE_ID: knowledgeDataSourceId }
        : {}),
      // Attachments' bytes (ADR 0030) in the local S3, as a deployment keeps them in its bucket.
      ...(s3 ? { ATTACHMENTS_BUCKET: LOCAL_ATTACHMENTS_BUCKET } : {}),
      ...(environment.knowledgeKeyPrefix
        ? { KNOWLEDGE_KEY_PREFIX: environment.knowledgeKeyPrefix }
        : {}),
      // The sample tickets' organisation (example.co.jp) beside the vendor sites, as a stack with
      // allowedEmailDomains example.co.jp would have it.
      ...(ticketCategories && { TICKET_CATEGORIES: JSON.stringify(ticketCategories) }),
      ALLOWED_LINK_DOMAINS:
        (options.environment ?? process.env).ALLOWED_LINK_DOMAINS ??
        ['example.co.jp', ...DEFAULT_VENDOR_LINK_DOMAINS].join(','),
      ...(credentials
        ? {
            AWS_ACCESS_KEY_ID: credentials.accessKeyId,
            AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
          }
        : configuredCredentials()),
      // The caller's settings (e.g. DAILY_TOKEN_BUDGET) over the defaults above; a test's own last.
      ...environment.functionSettings,
      ...options.functionEnvironment,
    };
    // A bad setting stops the start with its name, instead of failing every cold start later.
    readFunctionConfig(functionEnvironment);
    return {
      bedrock,
      s3: s3?.server,
      dynamoDbEndpoint: dynamo.endpoint,
      functionEnvironment,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * The whole assistant on one machine: DynamoDB Local, the local Bedrock endpoint, and the bundled
 * handler in execution environments running the real Lambda runtime client, behind a Function
 * URL front that also serves the web app — one origin, as behind CloudFront. For knowledge
 * capture, a local S3 holds the Knowledge Base's document bucket, whose published-tickets folder
 * the local Bedrock endpoint indexes (at start and on each ingestion job). Pieces given by
 * environment variables are used instead of being started.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const services = await startLocalServices(options);
  const { bedrock, s3, dynamoDbEndpoint, functionEnvironment } = services;
  const cleanups: (() => Promise<void>)[] = [() => services.stop()];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const lambda = new LocalLambdaFunction({
      functionName: 'service-desk-api',
      bundlePath: options.handlerBundle ?? (await defaultHandlerBundle()),
      environment: functionEnvironment,
      timeoutMs: options.functionTimeoutMs ?? 300_000,
      memoryMb: 1024,
      activeTracing: options.activeTracing,
      maxEnvironments: options.maxEnvironments,
      output: options.functionOutput ?? { stdout: process.stdout, stderr: process.stderr },
    });
    cleanups.push(() => lambda.stop());
    await lambda.provision(options.provisionedEnvironments ?? 0);
    const server = await startFunctionUrlServer({
      function: lambda,
      port: options.port ?? readLocalStackEnvironment(options.environment ?? process.env).port,
      staticDir: options.webDir ?? 'web/dist',
      staticOverrides: new Map([
        ['/config.json', JSON.stringify({ apiBase: '/api', authMode: 'local' })],
      ]),
      log: (message, error) =>
        (options.log ?? console.error)(
          `${message} ${error instanceof Error ? (error.stack ?? error.message) : ''}`,
        ),
    });
    cleanups.push(() => server.close());
    return {
      url: server.url,
      bedrock,
      s3,
      dynamoDbEndpoint,
      functionEnvironment,
      function: lambda,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function startDynamo(
  environment: LocalStackEnvironment,
  dataDir: string | undefined,
): Promise<{ endpoint: string; local?: DynamoDbLocal }> {
  if (environment.dynamoDbEndpoint) return { endpoint: environment.dynamoDbEndpoint };
  const local = await startDynamoDbLocal({ port: 0, dataDir });
  return { endpoint: local.endpoint, local };
}

/**
 * The local S3 with the Knowledge Base's document bucket, when the Knowledge Base is the local
 * one and `S3_ENDPOINT` is unset. Its root is `s3Dir` (kept) or a temporary directory removed on
 * stop. A real Knowledge Base reads a real bucket, so then nothing is started.
 */
async function startS3(
  environment: LocalStackEnvironment,
  localKnowledgeBase: boolean,
  s3Dir: string | undefined,
  cleanups: (() => Promise<void>)[],
): Promise<{ server: LocalS3Server; bucket: string } | undefined> {
  if (environment.s3Endpoint || !localKnowledgeBase) return undefined;
  const root = s3Dir ? resolve(s3Dir) : await mkdtemp(join(tmpdir(), 'local-s3-'));
  if (!s3Dir) cleanups.push(() => rm(root, { recursive: true, force: true }));
  const bucket = environment.knowledgeBucket ?? LOCAL_KNOWLEDGE_BUCKET;
  const server = await startLocalS3Server({ root, buckets: [bucket, LOCAL_ATTACHMENTS_BUCKET] });
  cleanups.push(() => server.close());
  return { server, bucket };
}

/** The local Bedrock endpoint is needed unless both Bedrock endpoints point elsewhere. */
function needsLocalBedrock(environment: LocalStackEnvironment): boolean {
  return !environment.bedrockRuntimeEndpoint || !environment.bedrockAgentRuntimeEndpoint;
}

/** `aws` → the real service (no variable); a URL → that server; unset → the local endpoint. */
function endpointVariable(
  name: string,
  configured: string | undefined,
  local: string | undefined,
): Record<string, string> {
  if (configured === 'aws') return {};
  const endpoint = configured ?? local;
  return endpoint ? { [name]: endpoint } : {};
}

/**
 * Dummy credentials when none are configured: DynamoDB Local and the local Bedrock endpoint accept
 * any signature. Real credentials, when present, are used as they are (they work locally too).
 */
function localCredentials(): { accessKeyId: string; secretAccessKey: string } | undefined {
  if (process.env.AWS_ACCESS_KEY_ID || process.env.AWS_PROFILE) return undefined;
  return { accessKeyId: 'local', secretAccessKey: 'local' };
}

/**
 * The caller's own credentials, handed to the function's environment (Lambda passes its role's
 * credentials the same way, as variables); a profile also needs HOME to find ~/.aws.
 */
function configuredCredentials(): Record<string, string> {
  const names = [
    'AWS_ACCESS_KEY_ID',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'AWS_PROFILE',
    'AWS_CONFIG_FILE',
    'AWS_SHARED_CREDENTIALS_FILE',
    'HOME',
  ];
  return Object.fromEntries(
    names.flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
  );
}

/** The API handler as `npm start` runs it: Node 20 here (the Lambda bundle targets Node 22). */
async function defaultHandlerBundle(): Promise<string> {
  const outfile = resolve('.data/build/api/handler.mjs');
  await ensureApiHandlerBundle({ outfile, target: 'node20', minify: false });
  return outfile;
}
