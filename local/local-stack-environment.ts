import { join, resolve } from 'node:path';
import { functionVariables } from '../functions/settings/function-settings.js';
import { LOCAL_KNOWLEDGE_BASE_ID, OFFLINE_MODEL_ID } from './bedrock/local-bedrock-defaults.js';

/** Environment of `npm start`, every piece replaceable by setting its variable. */
export interface LocalStackEnvironment {
  readonly port: number;
  /** Set: use that DynamoDB (tables are still created if missing). Unset: start DynamoDB Local. */
  readonly dynamoDbEndpoint?: string;
  /** `aws` means the real service; a URL any server speaking the protocol; unset the local endpoint. */
  readonly bedrockRuntimeEndpoint?: string;
  readonly bedrockAgentRuntimeEndpoint?: string;
  /**
   * The Knowledge Base's control plane (StartIngestionJob after a publish). Unset: follows
   * `bedrockAgentRuntimeEndpoint` (the local endpoint serves both on one port), so a sync goes
   * to the Knowledge Base retrieval reads.
   */
  readonly bedrockAgentEndpoint?: string;
  /**
   * `aws` or a URL: the document bucket lives there (with `knowledgeBucket`). Unset: a local S3
   * is started when the Knowledge Base is the local one; with a real Knowledge Base, real S3.
   */
  readonly s3Endpoint?: string;
  /** The Knowledge Base's document bucket. @default the local S3's `local-knowledge-documents` */
  readonly knowledgeBucket?: string;
  /** The data source that reads the bucket. @default the local endpoint's, for the local Knowledge Base */
  readonly knowledgeDataSourceId?: string;
  /** Where published tickets go in the bucket. @default 'tickets/published/' (the function's default) */
  readonly knowledgeKeyPrefix?: string;
  readonly modelId: string;
  readonly knowledgeBaseId: string;
  /**
   * The ticket folder the local Knowledge Base serves (`TICKETS_DIR`, relative to the working
   * directory): `<id>.md` documents beside `<id>.md.metadata.json` sidecars, such as an import's
   * `--out` folder. @default 'data/tickets'
   */
  readonly ticketsDir: string;
  readonly region: string;
  /**
   * `local` (default): the `x-dev-user` header; `oidc`: sign-in at an OpenID provider — the one
   * `oidcIssuer` names, else a local one started with dev users (ADR 0028).
   */
  readonly authMode: 'local' | 'oidc';
  /** `OIDC_ISSUER`: an external issuer to sign in at instead of the local OpenID provider. */
  readonly oidcIssuer?: string;
  /** `OIDC_CLIENT_ID`: the web app's client id at that issuer. @default the first `OIDC_AUDIENCE` */
  readonly oidcClientId?: string;
  /** `OIDC_SCOPE`: what the web app asks that issuer for. @default 'openid profile email' */
  readonly oidcScope?: string;
  /** `OIDC_EXTRA_ORIGINS`: origins besides the issuer's the sign-in fetches from (comma-separated). */
  readonly oidcExtraOrigins: readonly string[];
  /**
   * The function's own settings (`functions/settings/function-settings.ts`) set in this environment,
   * passed to the function as they are: `DAILY_TOKEN_BUDGET=2000 npm start`. Those the local
   * stack derives itself (above: endpoints, ids, bucket; and tables, auth) are not among them.
   */
  readonly functionSettings: Readonly<Record<string, string>>;
}

/**
 * Function settings the local stack decides itself: read above in their own form (endpoints,
 * `aws` for the real service), or fixed by what it starts (its tables; local auth, which the
 * served `/config.json` and the dev-user header rely on).
 */
const SETTINGS_OF_THE_LOCAL_STACK: ReadonlySet<string> = new Set([
  'AUTH_MODE',
  'OIDC_ISSUER',
  'COGNITO_USER_POOL_ID',
  'COGNITO_CLIENT_ID',
  'CONVERSATIONS_TABLE',
  'TURNS_TABLE',
  'INSIGHTS_TABLE',
  'KNOWLEDGE_BASE_ID',
  'MODEL_ID',
  'AWS_REGION',
  'DYNAMODB_ENDPOINT',
  'BEDROCK_RUNTIME_ENDPOINT',
  'BEDROCK_AGENT_RUNTIME_ENDPOINT',
  'BEDROCK_AGENT_ENDPOINT',
  'S3_ENDPOINT',
  'KNOWLEDGE_BUCKET',
  'KNOWLEDGE_DATA_SOURCE_ID',
  'KNOWLEDGE_KEY_PREFIX',
  // Derived from the served ticket folder (TICKETS_DIR), as the stack derives it at synth.
  'TICKET_CATEGORIES',
]);

/**
 * Every variable the function's config schema reads, except the local stack's own: the list
 * follows the schema, so a setting added there can be tried with `npm start` at once.
 */
const PASSED_THROUGH_SETTINGS = functionVariables.filter(
  (name) => !SETTINGS_OF_THE_LOCAL_STACK.has(name),
);

/** Reads `npm start`'s environment (`process.env`; tests pass their own). */
export function readLocalStackEnvironment(
  environment: Record<string, string | undefined>,
): LocalStackEnvironment {
  const port = Number(environment.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`PORT must be a port number, got ${environment.PORT}`);
  const authMode = environment.AUTH_MODE || 'local';
  if (authMode !== 'local' && authMode !== 'oidc')
    throw new Error(
      `AUTH_MODE=${authMode}: npm start signs in with local (the dev-user header) or oidc (an OpenID provider: OIDC_ISSUER, else a local one)`,
    );
  return {
    port,
    authMode,
    oidcIssuer: environment.OIDC_ISSUER || undefined,
    oidcClientId:
      environment.OIDC_CLIENT_ID || environment.OIDC_AUDIENCE?.split(',')[0]?.trim() || undefined,
    oidcScope: environment.OIDC_SCOPE || undefined,
    oidcExtraOrigins: (environment.OIDC_EXTRA_ORIGINS ?? '')
      .split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    dynamoDbEndpoint: environment.DYNAMODB_ENDPOINT || undefined,
    bedrockRuntimeEndpoint: environment.BEDROCK_RUNTIME_ENDPOINT || undefined,
    bedrockAgentRuntimeEndpoint: environment.BEDROCK_AGENT_RUNTIME_ENDPOINT || undefined,
    bedrockAgentEndpoint:
      environment.BEDROCK_AGENT_ENDPOINT || environment.BEDROCK_AGENT_RUNTIME_ENDPOINT || undefined,
    s3Endpoint: environment.S3_ENDPOINT || undefined,
    knowledgeBucket: environment.KNOWLEDGE_BUCKET || undefined,
    knowledgeDataSourceId: environment.KNOWLEDGE_DATA_SOURCE_ID || undefined,
    knowledgeKeyPrefix: environment.KNOWLEDGE_KEY_PREFIX || undefined,
    modelId: environment.MODEL_ID || OFFLINE_MODEL_ID,
    knowledgeBaseId: environment.KNOWLEDGE_BASE_ID || LOCAL_KNOWLEDGE_BASE_ID,
    ticketsDir: resolve(environment.TICKETS_DIR || join('data', 'tickets')),
    region: environment.AWS_REGION || environment.AWS_DEFAULT_REGION || 'us-east-1',
    functionSettings: Object.fromEntries(
      PASSED_THROUGH_SETTINGS.flatMap((name) => {
        const value = environment[name];
        return value ? [[name, value]] : [];
      }),
    ),
  };
}
