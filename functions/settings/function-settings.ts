import * as z from 'zod';
import { searchTypeProblem, VECTOR_STORES } from '../adapters/bedrock/vector-store-search.js';
import type { SyncedSourceSummary } from '../adapters/dynamodb/ticket-sync-status.js';
import { DESK_NAME, formatNamePairs, type NamePair, namePairsSchema } from '../api/caller-roles.js';
import { ticketCategorySet } from '../contract/knowledge.js';
import { DEFAULT_VENDOR_LINK_DOMAINS, normalizeDomain } from '../contract/links.js';
import { parseScrubSettings, type ScrubSettings } from '../knowledge/personal-data-scrub.js';
import type { ModelPrice } from '../observability/model-prices.js';
import {
  DEFAULT_PADDING_BYTES,
  MIN_PADDING_BYTES,
  STREAM_PADDING_MODES,
} from '../sse/stream-padding.js';
import {
  choice,
  decimal,
  flag,
  integer,
  json,
  nameList,
  optionalText,
  type Setting,
  type SettingValue,
  setting,
  text,
  textWithDefault,
} from './setting.js';

/** Where the stack's attachment bucket keeps attachments (its lifecycle rule's prefix too). */
export const DEFAULT_ATTACHMENTS_KEY_PREFIX = 'attachments/';

const optionalUrl = (variable: string) => optionalText(variable, z.string().url());

/** An issuer URL: https, or http on a loopback address; no query, no fragment. */
const issuerUrl = z
  .string()
  .url('OIDC_ISSUER must be a URL')
  .refine((text) => {
    if (!URL.canParse(text)) return false;
    const url = new URL(text);
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    return (
      (url.protocol === 'https:' || (loopback && url.protocol === 'http:')) &&
      !url.search &&
      !url.hash
    );
  }, 'OIDC_ISSUER must be an https URL (http only on a loopback address) without query or fragment');
/** The `ticketSync` sources the insights page lists (`TICKET_SYNC_SOURCES`). */
const syncedSourcesSchema = z.array(
  z
    .object({
      id: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/),
      system: z.enum(['servicenow', 'jira', 'zendesk']),
      maxLagMinutes: z.number().int().min(1),
    })
    .strict(),
);

/** Prices per million tokens (`functions/observability/model-prices.ts`); `modelPrices` in cdk.json too. */
export const modelPriceSchema = z
  .object({
    inputPerMillion: z.number().min(0),
    outputPerMillion: z.number().min(0),
    cacheWritePerMillion: z.number().min(0).optional(),
    cacheReadPerMillion: z.number().min(0).optional(),
  })
  .strict() satisfies z.ZodType<ModelPrice>;

/** Prompt-cache support of one model (`functions/adapters/bedrock/prompt-cache-support.ts`); `promptCacheModels` in cdk.json too. */
export const promptCacheSupportSchema = z
  .object({ minimumTokens: z.number().int().min(0), cacheTools: z.boolean() })
  .strict();

/**
 * Every setting of the API function, grouped by what it configures, each with its environment
 * variable and its one default. The function reads them with {@link readFunctionConfig}; the stack
 * writes them with {@link functionEnvironment}; the CDK context settings of the same name take
 * their defaults from here (lib/config.ts). A new setting is one entry here, its use, and its line
 * in the docs.
 */
export const functionSettings = {
  auth: {
    /**
     * `cognito`: the stack's own user pool; `oidc`: any OpenID Connect issuer (`OIDC_*`, ADR
     * 0028); `local`: the `x-dev-user` header, for `npm start` and tests only — the stack never
     * deploys it (lib/config.ts).
     */
    mode: choice('AUTH_MODE', ['cognito', 'oidc', 'local'], 'cognito'),
    userPoolId: optionalText('COGNITO_USER_POOL_ID'),
    clientId: optionalText('COGNITO_CLIENT_ID'),
    /**
     * Tenant part of every owner key (`<tenant>#<user>`); one deployment serves one tenant. A `#`
     * would make the key ambiguous and the store refuses it on every request, so it fails here.
     */
    tenantId: textWithDefault(
      'TENANT_ID',
      'default',
      z
        .string()
        .regex(/^[A-Za-z0-9._:@-]{1,64}$/, 'TENANT_ID must be 1-64 of A-Z a-z 0-9 . _ : @ -'),
    ),
    /** Cognito: members of this group may publish knowledge (the `cognito:groups` claim). */
    knowledgeEditorGroup: textWithDefault('KNOWLEDGE_EDITOR_GROUP', 'knowledge-editors'),
    /**
     * Local mode only: dev users (comma-separated) who may publish; empty: every dev user, so a
     * developer can try the whole flow on built-in defaults.
     */
    knowledgeEditors: nameList('KNOWLEDGE_EDITORS'),
    /** Cognito: members of this group are service-desk leads and may read `GET /api/insights`. */
    serviceDeskLeadGroup: textWithDefault('SERVICE_DESK_LEAD_GROUP', 'service-desk-leads'),
    /** Local mode only: dev users who are service-desk leads; empty: every dev user. */
    serviceDeskLeads: nameList('SERVICE_DESK_LEADS'),
    /**
     * `oidc`: the issuer whose tokens the API accepts; its keys come from its discovery document.
     * https, except a loopback issuer (the local OpenID provider of `npm start`).
     */
    oidcIssuer: optionalText('OIDC_ISSUER', issuerUrl),
    /** `oidc`: the `aud` or `client_id` values (comma-separated) the API accepts. */
    oidcAudience: nameList('OIDC_AUDIENCE'),
    /**
     * `oidc`: the claim carrying the caller's roles or groups — a name (`roles`, `groups`,
     * `cognito:groups`) or a dotted path into nested claims (`realm_access.roles`).
     */
    roleClaim: textWithDefault('OIDC_ROLE_CLAIM', 'roles'),
    /** `oidc`: role values of knowledge editors; empty: `KNOWLEDGE_EDITOR_GROUP`'s value. */
    editorRoles: nameList('OIDC_EDITOR_ROLES'),
    /** `oidc`: role values of service-desk leads; empty: `SERVICE_DESK_LEAD_GROUP`'s value. */
    leadRoles: nameList('OIDC_LEAD_ROLES'),
    /**
     * Every mode: the desks a role value grants, `<role value>=<desk>` pairs (`HRDeskStaff=hr`);
     * every caller retrieves desk `all` besides (functions/api/caller-roles.ts).
     */
    deskRoles: setting<NamePair[]>(
      'OIDC_DESK_ROLES',
      namePairsSchema('OIDC_DESK_ROLES', DESK_NAME),
      {
        default: [],
        format: (pairs) => (pairs.length > 0 ? formatNamePairs(pairs) : undefined),
      },
    ),
    /**
     * Local mode only: the role values of dev users, `<dev user>=<role value>` pairs
     * (`hr-staff=HRDeskStaff`), so a developer or a test can act as a desk's staff member.
     */
    devUserRoles: setting<NamePair[]>(
      'DEV_USER_ROLES',
      namePairsSchema('DEV_USER_ROLES', /^[^\s,=]{1,128}$/),
      { default: [], format: (pairs) => (pairs.length > 0 ? formatNamePairs(pairs) : undefined) },
    ),
  },
  storage: {
    conversationsTable: text('CONVERSATIONS_TABLE'),
    turnsTable: text('TURNS_TABLE'),
    /** Days until a conversation expires (TTL), counted from its last change. */
    retentionDays: integer('RETENTION_DAYS', { min: 1, max: 3650, default: 90 }),
  },
  model: {
    /** Model or inference-profile id for ConverseStream. */
    id: text('MODEL_ID'),
    /**
     * Input + output tokens one user may spend per UTC day: each model call reserves the most it
     * can cost on a DynamoDB counter before anything is written and settles to what it used (ADR
     * 0012); over it: 429 until midnight UTC. 0 turns it off.
     */
    dailyTokenBudget: integer('DAILY_TOKEN_BUDGET', { min: 0, default: 2_000_000 }),
    /**
     * Prices per million tokens that add to or override the built-in table (the `modelPrices`
     * deploy setting), as JSON: `{"anthropic.claude-…":{"inputPerMillion":3,"outputPerMillion":15}}`.
     */
    prices: json('MODEL_PRICES', z.record(z.string(), modelPriceSchema)),
    /**
     * `auto`: Converse cache checkpoints after the tool definitions, the system prompt and the
     * inquiry's history where the model supports prompt caching (ADR 0009); `off`: none.
     */
    promptCaching: choice('PROMPT_CACHING', ['auto', 'off'], 'auto'),
    /**
     * Prompt-cache support that adds to or overrides the built-in table (ADR 0009; the
     * `promptCacheModels` deploy setting), as JSON: `{"<model id>":{"minimumTokens":1024,
     * "cacheTools":true}}` — a model Bedrock gained caching for since this release, or the local
     * stack's offline responder.
     */
    promptCacheModels: json('PROMPT_CACHE_MODELS', z.record(z.string(), promptCacheSupportSchema)),
    /**
     * A Bedrock Guardrail on every ConverseStream call (ADR 0013): its id or ARN and version,
     * both or neither. The stack sets them from `guardrail`.
     */
    guardrailIdentifier: optionalText('GUARDRAIL_IDENTIFIER'),
    guardrailVersion: optionalText(
      'GUARDRAIL_VERSION',
      z
        .string()
        .regex(/^([1-9]\d{0,7}|DRAFT)$/, 'GUARDRAIL_VERSION must be a version number or DRAFT'),
    ),
  },
  knowledgeBase: {
    id: text('KNOWLEDGE_BASE_ID'),
    /**
     * The Knowledge Base's vector store (the `vectorStore` deploy setting): which search type and
     * filter operators `Retrieve` may use (functions/adapters/bedrock/vector-store-search.ts).
     */
    vectorStore: choice('VECTOR_STORE', VECTOR_STORES, 'opensearch-serverless'),
    /** Unset: HYBRID on OpenSearch Serverless, SEMANTIC elsewhere. HYBRID elsewhere is an error. */
    searchType: setting<'HYBRID' | 'SEMANTIC' | undefined>(
      'SEARCH_TYPE',
      z.enum(['HYBRID', 'SEMANTIC']).optional(),
    ),
    /**
     * Foundation-model ARN of the reranker `Retrieve` uses for searches (the `rerankingModelId`
     * deploy setting); empty or unset: no reranking.
     */
    rerankingModelArn: setting<string | undefined>(
      'RERANKING_MODEL_ARN',
      z
        .union([
          z.literal('').transform(() => undefined),
          z
            .string()
            .regex(
              /^arn:aws[a-z-]*:bedrock:[a-z0-9-]+::foundation-model\/[\w.:-]+$/,
              'RERANKING_MODEL_ARN must be a Bedrock foundation-model ARN',
            ),
        ])
        .optional(),
    ),
  },
  chat: {
    /** Tickets requested from `Retrieve` per inquiry. */
    numberOfResults: integer('NUMBER_OF_RESULTS', { min: 1, max: 100, default: 8 }),
    /** Expand retrieval queries with the bilingual IT glossary (`functions/chat/retrieval.ts`). */
    queryExpansion: flag('QUERY_EXPANSION', true, {
      default: false,
      reason:
        'measured on the local keyword index (`npm run eval`), where it helps; the stack keeps it ' +
        'off until `npm run eval -- --target aws` shows it helps the deployed hybrid search too',
    }),
    /**
     * Domains (comma-separated; subdomains included) links in answers may point to; links
     * elsewhere are removed from mail drafts and to-dos and shown unverified in the advice
     * (`functions/contract/links.ts`). The stack sets it from `allowedLinkDomains`; unset: the
     * vendor support sites of `DEFAULT_VENDOR_LINK_DOMAINS` only.
     */
    allowedLinkDomains: setting<string[]>(
      'ALLOWED_LINK_DOMAINS',
      z
        .string()
        .optional()
        .transform((list, context) => {
          if (list === undefined) return [...DEFAULT_VENDOR_LINK_DOMAINS];
          const domains = list
            .split(',')
            .map((domain) => domain.trim())
            .filter(Boolean);
          for (const domain of domains) {
            if (normalizeDomain(domain) === undefined || /[/@]/u.test(domain)) {
              context.addIssue({ code: 'custom', message: `not a domain: ${domain}` });
            }
          }
          return domains;
        }),
      { default: [...DEFAULT_VENDOR_LINK_DOMAINS], format: (domains) => domains.join(',') },
    ),
  },
  stream: {
    /**
     * Padding comments that push small writes through a front end that holds them back
     * (functions/sse/stream-padding.ts): `off` (default), `after-pause` (the first write after a
     * pause and every heartbeat) or `every-flush`. Choose from the acceptance suite's figures.
     */
    padding: choice('STREAM_PADDING', STREAM_PADDING_MODES, 'off'),
    /** Bytes of one padding comment (16 KiB: where the runtime-client reports saw a flush). */
    paddingBytes: integer('STREAM_PADDING_BYTES', {
      min: MIN_PADDING_BYTES,
      max: 1024 * 1024,
      default: DEFAULT_PADDING_BYTES,
    }),
  },
  knowledge: {
    /**
     * Knowledge capture (ADR 0011): the Knowledge Base's document bucket and the data source that
     * reads it. Published tickets go to `KNOWLEDGE_KEY_PREFIX` in the bucket, then a sync starts.
     * Without a bucket (a reused Knowledge Base whose bucket was not configured) publishing
     * answers 501 and drafting is refused the same way.
     */
    bucket: optionalText('KNOWLEDGE_BUCKET', z.string()),
    dataSourceId: optionalText('KNOWLEDGE_DATA_SOURCE_ID', z.string()),
    /** Inside the data source's inclusion prefix, and excluded from the deploy's pruning. */
    keyPrefix: textWithDefault(
      'KNOWLEDGE_KEY_PREFIX',
      'tickets/published/',
      z
        .string()
        .regex(
          /^([A-Za-z0-9._-]+\/)+$/,
          'KNOWLEDGE_KEY_PREFIX must be folder names each ending in /',
        ),
    ),
    /**
     * The deployed tickets' categories as a JSON array (ADR 0020): the stack computes it at synth
     * from the ticket folder, the local stack from the served folder. Each is sanitized and the
     * set bounded again here (`ticketCategorySet`, ≤ 50 × 40 characters, far below Lambda's 4 KB
     * for all variables); unset or `[]`: none known, a published ticket takes any safe category.
     */
    ticketCategories: setting<string[]>(
      'TICKET_CATEGORIES',
      z
        .string()
        .optional()
        .transform((list, context) => {
          if (list === undefined || list.trim() === '') return [];
          let parsed: unknown;
          try {
            parsed = JSON.parse(list);
          } catch {
            parsed = undefined;
          }
          if (!Array.isArray(parsed)) {
            context.addIssue({ code: 'custom', message: 'TICKET_CATEGORIES must be a JSON array' });
            return z.NEVER;
          }
          return ticketCategorySet(parsed);
        }),
      { default: [], format: (categories) => JSON.stringify(categories) },
    ),
    /**
     * Knowledge capture's personal-data scrub settings as JSON — `{"patterns":[…],
     * "dictionary":[…],"keep":[…]}` (`functions/knowledge/personal-data-scrub.ts`, ADR 0019) —
     * the same file `npm run import` reads. Unset: the built-in detectors only.
     */
    personalDataSettings: setting<ScrubSettings>(
      'PERSONAL_DATA_SETTINGS',
      z
        .string()
        .optional()
        .transform((settings, context): ScrubSettings => {
          if (settings === undefined || settings.trim() === '') return {};
          try {
            return parseScrubSettings(JSON.parse(settings));
          } catch (error) {
            context.addIssue({ code: 'custom', message: (error as Error).message });
            return z.NEVER;
          }
        }),
      {
        default: {},
        format: (settings) =>
          Object.keys(settings).length > 0 ? JSON.stringify(settings) : undefined,
      },
    ),
  },
  insights: {
    /** The insights aggregates' table (ADR 0022); unset: nothing is recorded for insights. */
    table: optionalText('INSIGHTS_TABLE'),
    /**
     * Keep gap examples — scrubbed inquiry text leads see on the insights page (the
     * `insightsExamples` deploy setting). Off: gaps are counts only.
     */
    examples: flag('INSIGHTS_EXAMPLES', true),
    /**
     * Best retrieval score under which an answered inquiry counts as a knowledge gap
     * (`weak_retrieval`). Bedrock's scores depend on the vector store and search type; the local
     * index scales each language's best to 1, so locally only "nothing retrieved" is weak.
     */
    gapScore: decimal('INSIGHTS_GAP_SCORE', { min: 0, max: 1, default: 0.4 }),
  },
  attachments: {
    /**
     * Screenshots and log files sent with an inquiry (ADR 0030): the private bucket their bytes
     * go to (the stack's, encrypted, public access blocked). Unset: uploads fail with 500 and the
     * reason in the log, and a chat naming attachments finds none (404).
     */
    bucket: optionalText('ATTACHMENTS_BUCKET', z.string()),
    /** Folder of the attachments in the bucket; the bucket's lifecycle rule expires it. */
    keyPrefix: textWithDefault(
      'ATTACHMENTS_KEY_PREFIX',
      DEFAULT_ATTACHMENTS_KEY_PREFIX,
      z
        .string()
        .regex(
          /^([A-Za-z0-9._-]+\/)+$/,
          'ATTACHMENTS_KEY_PREFIX must be folder names each ending in /',
        ),
    ),
    /**
     * Output tokens of the vision step that reads an inquiry's images before retrieval (one
     * forced tool call: visible error text, application, error codes, a one-line description).
     */
    readingMaxTokens: integer('ATTACHMENT_READING_MAX_TOKENS', {
      min: 100,
      max: 2000,
      default: 600,
    }),
  },
  surges: {
    /**
     * Distinct staff members asking about one topic within the window that make a surge, the
     * current one included (the `surgeMinStaff` deploy setting, ADR 0033).
     */
    minStaff: integer('SURGE_MIN_STAFF', { min: 2, max: 1000, default: 3 }),
    /** The window a surge is counted in, in minutes (`surgeWindowMinutes`). */
    windowMinutes: integer('SURGE_WINDOW_MINUTES', { min: 6, max: 1440, default: 60 }),
    /** Announce a surge's start on the alarm topic (`surgeAlerts`); off: nothing is sent. */
    alerts: flag('SURGE_ALERTS', true),
    /** The stack's alarm topic; unset (locally): a log line says what would be sent. */
    alarmTopicArn: optionalText('ALARM_TOPIC_ARN'),
  },
  observability: {
    /** Powertools Logger level of the request and chat lines (never message text). */
    logLevel: choice('LOG_LEVEL', ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'], 'INFO'),
    /** Publish the chat metrics (CloudWatch embedded metric format on stdout). */
    metrics: flag('METRICS', true),
    /**
     * Trace requests and their DynamoDB and Bedrock calls with AWS X-Ray (Powertools Tracer, the
     * variable it reads too). The stack sets it with active tracing; off locally (no daemon).
     */
    tracing: flag('POWERTOOLS_TRACE_ENABLED', false),
  },
  ticketSync: {
    /** The ticket sync's table (ADR 0032), for the insights page's knowledge freshness. */
    table: optionalText('TICKET_SYNC_TABLE'),
    /**
     * The `ticketSync` sources as JSON, `[{"id":"servicenow","system":"servicenow",
     * "maxLagMinutes":60}]`: the stack writes it; unset or `[]`: none.
     */
    sources: setting<SyncedSourceSummary[]>(
      'TICKET_SYNC_SOURCES',
      z
        .string()
        .optional()
        .transform((text, context) => {
          if (text === undefined || text.trim() === '') return [];
          try {
            return syncedSourcesSchema.parse(JSON.parse(text));
          } catch {
            context.addIssue({
              code: 'custom',
              message: 'TICKET_SYNC_SOURCES must be a JSON array of {id, system, maxLagMinutes}',
            });
            return z.NEVER;
          }
        }),
      {
        default: [],
        format: (sources) => (sources.length > 0 ? JSON.stringify(sources) : undefined),
      },
    ),
  },
  /** Where the AWS services are: the region, and local endpoints (unset in AWS). */
  endpoints: {
    region: textWithDefault('AWS_REGION', 'us-east-1'),
    dynamoDb: optionalUrl('DYNAMODB_ENDPOINT'),
    bedrockRuntime: optionalUrl('BEDROCK_RUNTIME_ENDPOINT'),
    bedrockAgentRuntime: optionalUrl('BEDROCK_AGENT_RUNTIME_ENDPOINT'),
    /** The Knowledge Base's control plane (a sync after a publish, the ticket catalog). */
    bedrockAgent: optionalUrl('BEDROCK_AGENT_ENDPOINT'),
    s3: optionalUrl('S3_ENDPOINT'),
  },
} as const satisfies Record<string, Record<string, Setting<unknown>>>;

type Settings = typeof functionSettings;
type Group = keyof Settings;

/** The function's settings as it uses them: grouped, parsed, defaults filled in. */
export type FunctionConfig = {
  readonly [G in Group]: { readonly [K in keyof Settings[G]]: SettingValue<Settings[G][K]> };
};

/**
 * Values for {@link functionEnvironment}: any setting of any group; an absent one stays unset,
 * so the function uses its default.
 */
export type FunctionSettingValues = {
  readonly [G in Group]?: { readonly [K in keyof Settings[G]]?: SettingValue<Settings[G][K]> };
};

function* eachSetting(): Generator<[Group, string, Setting<unknown>]> {
  for (const [group, members] of Object.entries(functionSettings)) {
    for (const [key, member] of Object.entries(members)) {
      yield [group as Group, key, member as Setting<unknown>];
    }
  }
}

/** Every environment variable the function reads, in schema order. */
export const functionVariables: readonly string[] = [...eachSetting()].map(
  ([, , member]) => member.variable,
);

/** The whole environment as one flat object schema, with the checks across settings. */
const environmentSchema = z
  .object(
    Object.fromEntries([...eachSetting()].map(([, , member]) => [member.variable, member.schema])),
  )
  .superRefine((environment, context) => {
    const value = (name: string) => environment[name] as unknown;
    if (
      value('AUTH_MODE') === 'cognito' &&
      (!value('COGNITO_USER_POOL_ID') || !value('COGNITO_CLIENT_ID'))
    ) {
      context.addIssue({
        code: 'custom',
        message: 'AUTH_MODE=cognito needs COGNITO_USER_POOL_ID and COGNITO_CLIENT_ID',
      });
    }
    if (value('AUTH_MODE') === 'oidc') {
      if (!value('OIDC_ISSUER'))
        context.addIssue({ code: 'custom', message: 'AUTH_MODE=oidc needs OIDC_ISSUER' });
      if ((value('OIDC_AUDIENCE') as string[]).length === 0)
        context.addIssue({
          code: 'custom',
          message: 'AUTH_MODE=oidc needs OIDC_AUDIENCE (the aud or client_id the API accepts)',
        });
    }
    if (
      (value('GUARDRAIL_IDENTIFIER') === undefined) !==
      (value('GUARDRAIL_VERSION') === undefined)
    ) {
      context.addIssue({
        code: 'custom',
        message: 'GUARDRAIL_IDENTIFIER and GUARDRAIL_VERSION go together: set both or neither',
      });
    }
    const searchType = value('SEARCH_TYPE') as 'HYBRID' | 'SEMANTIC' | undefined;
    const searchProblem =
      searchType &&
      searchTypeProblem(searchType, value('VECTOR_STORE') as (typeof VECTOR_STORES)[number]);
    if (searchProblem) {
      context.addIssue({ code: 'custom', path: ['SEARCH_TYPE'], message: searchProblem });
    }
    if (value('KNOWLEDGE_BUCKET') && !value('KNOWLEDGE_DATA_SOURCE_ID')) {
      context.addIssue({
        code: 'custom',
        message:
          'KNOWLEDGE_BUCKET needs KNOWLEDGE_DATA_SOURCE_ID (the sync to start after a publish)',
      });
    }
  });

/**
 * The function's environment, validated once at cold start and grouped. A missing or malformed
 * variable fails the init with a message naming it, instead of a confusing error on the first
 * request.
 *
 * @example
 * const config = readFunctionConfig(process.env);
 * config.model.dailyTokenBudget; // 2_000_000 unless DAILY_TOKEN_BUDGET says otherwise
 */
export function readFunctionConfig(
  environment: Record<string, string | undefined>,
): FunctionConfig {
  // Parsed once per cold start: zod's compiled fast path for an object (`new Function` on its
  // first parse) costs more to build than this one parse saves.
  const parsed = environmentSchema.safeParse(environment, { jitless: true });
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${issue.path.join('.') || 'config'}: ${issue.message}`,
    );
    throw new Error(`Invalid function configuration — ${problems.join('; ')}`);
  }
  const grouped: Record<string, Record<string, unknown>> = {};
  for (const [group, key, member] of eachSetting()) {
    grouped[group] ??= {};
    grouped[group][key] = parsed.data[member.variable];
  }
  return grouped as FunctionConfig;
}

/**
 * The environment variables for `values` (the stack's, at synth): each given setting as its
 * variable's text; absent ones, and optional ones without a value, stay unset.
 *
 * @example
 * functionEnvironment({ model: { id: 'm', dailyTokenBudget: 0 } });
 * // { MODEL_ID: 'm', DAILY_TOKEN_BUDGET: '0' }
 */
export function functionEnvironment(values: FunctionSettingValues): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const [group, key, member] of eachSetting()) {
    const groupValues = values[group] as Record<string, unknown> | undefined;
    if (groupValues === undefined || !(key in groupValues)) continue;
    const value = groupValues[key];
    if (value === undefined) continue;
    const text = member.format(value);
    if (text !== undefined) environment[member.variable] = text;
  }
  return environment;
}

/**
 * `base` with `over`'s settings added, group by group; a setting `over` leaves `undefined` keeps
 * `base`'s value.
 */
export function mergeSettingValues<Base extends FunctionSettingValues>(
  base: Base,
  over: { readonly [G in Group]?: FunctionSettingValues[G] | undefined | false },
): Base {
  const merged: Record<string, Record<string, unknown>> = {};
  for (const [group, values] of Object.entries(base)) merged[group] = { ...values };
  for (const [group, values] of Object.entries(over)) {
    if (!values) continue;
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) continue;
      merged[group] ??= {};
      merged[group][key] = value;
    }
  }
  return merged as Base;
}

/**
 * The guardrail the model adapter applies, or `undefined` for none.
 *
 * @example
 * guardrailOf(readFunctionConfig(process.env).model); // { identifier: 'gr1234', version: '1' }
 */
export function guardrailOf(
  model: FunctionConfig['model'],
): { identifier: string; version: string } | undefined {
  const { guardrailIdentifier: identifier, guardrailVersion: version } = model;
  return identifier !== undefined && version !== undefined ? { identifier, version } : undefined;
}
