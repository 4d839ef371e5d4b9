import * as z from 'zod';
import { searchTypeProblem, VECTOR_STORES } from '../adapters/bedrock/vector-store-search.js';
import { ticketCategorySet } from '../contract/knowledge.js';
import { DEFAULT_VENDOR_LINK_DOMAINS, normalizeDomain } from '../contract/links.js';
import { DEFAULT_GAP_SCORE_THRESHOLD } from '../insights/record-insights.js';
import { parseScrubSettings, type ScrubSettings } from '../knowledge/personal-data-scrub.js';
import {
  DEFAULT_PADDING_BYTES,
  MIN_PADDING_BYTES,
  STREAM_PADDING_MODES,
} from '../sse/stream-padding.js';

const optionalUrl = z.string().url().optional();
const booleanText = z.enum(['true', 'false']).transform((value) => value === 'true');

/** A JSON setting (default `{}`): a message naming `name` when it is not JSON, then `schema`. */
function jsonText<Schema extends z.ZodType>(name: string, schema: Schema) {
  return z
    .string()
    .default('{}')
    .transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: `${name} must be JSON` });
        return z.NEVER;
      }
    })
    .pipe(schema);
}

/**
 * The function's environment, validated once at cold start. A missing or malformed variable
 * fails the init with a message naming it, instead of a confusing error on the first request.
 */
export const functionConfigSchema = z
  .object({
    AUTH_MODE: z.enum(['cognito', 'local']).default('cognito'),
    COGNITO_USER_POOL_ID: z.string().optional(),
    COGNITO_CLIENT_ID: z.string().optional(),
    /**
     * Tenant part of every owner key (`<tenant>#<user>`); one deployment serves one tenant. A `#`
     * would make the key ambiguous and the store refuses it on every request, so it fails here.
     */
    TENANT_ID: z
      .string()
      .regex(/^[A-Za-z0-9._:@-]{1,64}$/, 'TENANT_ID must be 1-64 of A-Z a-z 0-9 . _ : @ -')
      .default('default'),
    CONVERSATIONS_TABLE: z.string().min(1),
    TURNS_TABLE: z.string().min(1),
    /** The insights aggregates' table (ADR 0022); unset: nothing is recorded for insights. */
    INSIGHTS_TABLE: z.string().min(1).optional(),
    /**
     * Keep gap examples — scrubbed inquiry text leads see on the insights page (the
     * `insightsExamples` deploy setting). Off: gaps are counts only.
     */
    INSIGHTS_EXAMPLES: booleanText.default(true),
    /**
     * Best retrieval score under which an answered inquiry counts as a knowledge gap
     * (`weak_retrieval`). Bedrock's scores depend on the vector store and search type; the local
     * index scales each language's best to 1, so locally only "nothing retrieved" is weak.
     */
    INSIGHTS_GAP_SCORE: z.coerce.number().min(0).max(1).default(DEFAULT_GAP_SCORE_THRESHOLD),
    KNOWLEDGE_BASE_ID: z.string().min(1),
    MODEL_ID: z.string().min(1),
    AWS_REGION: z.string().min(1).default('us-east-1'),
    DYNAMODB_ENDPOINT: optionalUrl,
    BEDROCK_RUNTIME_ENDPOINT: optionalUrl,
    BEDROCK_AGENT_RUNTIME_ENDPOINT: optionalUrl,
    NUMBER_OF_RESULTS: z.coerce.number().int().min(1).max(100).default(8),
    /** Expand retrieval queries with the bilingual IT glossary (`functions/chat/retrieval.ts`). */
    QUERY_EXPANSION: booleanText.default(true),
    /** Output tokens per answer; advice, cards, mail draft and to-dos of a long answer fit in 8192. */
    MAX_TOKENS: z.coerce.number().int().min(256).max(64_000).default(8192),
    RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
    HEARTBEAT_MS: z.coerce.number().int().min(10).max(25_000).default(10_000),
    /**
     * 0 (default): `token` events are coalesced without delay — written at once when the stream
     * is idle, merged only while a write is pending or within one event-loop turn. Above 0: an
     * opt-in extra that also holds advice until it is ≥ 80 characters or this many ms old, for
     * fewer events (and syscalls) when fragments arrive spread out, at the cost of that delay.
     */
    TOKEN_BATCH_MS: z.coerce.number().int().min(0).max(1000).default(0),
    /**
     * Padding comments that push small writes through a front end that holds them back
     * (functions/sse/stream-padding.ts): `off` (default), `after-pause` (the first write after a
     * pause and every heartbeat) or `every-flush`. Choose from the acceptance suite's figures.
     */
    STREAM_PADDING: z.enum(STREAM_PADDING_MODES).default('off'),
    /** Bytes of one padding comment. */
    STREAM_PADDING_BYTES: z.coerce
      .number()
      .int()
      .min(MIN_PADDING_BYTES)
      .max(1024 * 1024)
      .default(DEFAULT_PADDING_BYTES),
    STOP_POLL_MS: z.coerce.number().int().min(10).max(10_000).default(1000),
    /**
     * How long a generation claim lasts without renewal (the holder renews every third of it):
     * after a crash, a retry of the same message takes over about this long later.
     */
    GENERATION_LEASE_MS: z.coerce.number().int().min(300).max(900_000).default(30_000),
    ARCHIVE_BUDGET_CHARS: z.coerce.number().int().min(200).max(50_000).default(3000),
    TURN_CACHE_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .default(32 * 1024 * 1024),
    /**
     * The Knowledge Base's vector store (the `vectorStore` deploy setting): which search type and
     * filter operators `Retrieve` may use (functions/adapters/bedrock/vector-store-search.ts).
     */
    VECTOR_STORE: z.enum(VECTOR_STORES).default('opensearch-serverless'),
    /** Unset: HYBRID on OpenSearch Serverless, SEMANTIC elsewhere. HYBRID elsewhere is an error. */
    SEARCH_TYPE: z.enum(['HYBRID', 'SEMANTIC']).optional(),
    /**
     * Foundation-model ARN of the reranker `Retrieve` uses for searches (the `rerankingModelId`
     * deploy setting); empty or unset: no reranking.
     */
    RERANKING_MODEL_ARN: z
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
    /**
     * Input + output tokens one user may spend per UTC day: each model call reserves the most it
     * can cost on a DynamoDB counter before anything is written and settles to what it used (ADR
     * 0012); over it: 429 until midnight UTC. 0 turns it off.
     */
    DAILY_TOKEN_BUDGET: z.coerce.number().int().min(0).default(2_000_000),
    /**
     * Prices per million tokens that add to or override the built-in table (the `modelPrices`
     * deploy setting), as JSON: `{"anthropic.claude-…":{"inputPerMillion":3,"outputPerMillion":15}}`.
     */
    MODEL_PRICES: jsonText(
      'MODEL_PRICES',
      z.record(
        z.string(),
        z
          .object({
            inputPerMillion: z.number().min(0),
            outputPerMillion: z.number().min(0),
            cacheWritePerMillion: z.number().min(0).optional(),
            cacheReadPerMillion: z.number().min(0).optional(),
          })
          .strict(),
      ),
    ),
    /** Powertools Logger level of the request and chat lines (never message text). */
    LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
    /** Publish the chat metrics (CloudWatch embedded metric format on stdout). */
    METRICS: booleanText.default(true),
    /**
     * Trace requests and their DynamoDB and Bedrock calls with AWS X-Ray (Powertools Tracer, the
     * variable it reads too). The stack sets it with active tracing; off locally (no daemon).
     */
    POWERTOOLS_TRACE_ENABLED: booleanText.default(false),
    FINE_GRAINED_TOOL_STREAMING: booleanText.optional(),
    /**
     * `auto`: Converse cache checkpoints after the tool definitions, the system prompt and the
     * inquiry's history where the model supports prompt caching (ADR 0009); `off`: none.
     */
    PROMPT_CACHING: z.enum(['auto', 'off']).default('auto'),
    /**
     * Prompt-cache support that adds to or overrides the built-in table (ADR 0009), as JSON:
     * `{"<model id>":{"minimumTokens":1024,"cacheTools":true}}` — a model Bedrock gained since,
     * or the local stack's offline responder.
     */
    PROMPT_CACHE_MODELS: jsonText(
      'PROMPT_CACHE_MODELS',
      z.record(
        z.string(),
        z.object({ minimumTokens: z.number().int().min(0), cacheTools: z.boolean() }).strict(),
      ),
    ),
    /**
     * A Bedrock Guardrail on every ConverseStream call (ADR 0013): its id or ARN and version,
     * both or neither. The stack sets them from `guardrail`.
     */
    GUARDRAIL_IDENTIFIER: z.string().min(1).optional(),
    GUARDRAIL_VERSION: z
      .string()
      .regex(/^([1-9]\d{0,7}|DRAFT)$/, 'GUARDRAIL_VERSION must be a version number or DRAFT')
      .optional(),
    /**
     * Knowledge capture (ADR 0011): the Knowledge Base's document bucket and the data source that
     * reads it. Published tickets go to `KNOWLEDGE_KEY_PREFIX` in the bucket, then a sync starts.
     * Without a bucket (a reused Knowledge Base whose bucket was not configured) publishing
     * answers 501 and drafting is refused the same way.
     */
    KNOWLEDGE_BUCKET: z.string().optional(),
    KNOWLEDGE_DATA_SOURCE_ID: z.string().optional(),
    /** Inside the data source's inclusion prefix, and excluded from the deploy's pruning. */
    KNOWLEDGE_KEY_PREFIX: z
      .string()
      .regex(/^([A-Za-z0-9._-]+\/)+$/, 'KNOWLEDGE_KEY_PREFIX must be folder names each ending in /')
      .default('tickets/published/'),
    /** Ticket numbers of published tickets start here, above the imported ones. */
    KNOWLEDGE_FIRST_ISSUE_ID: z.coerce.number().int().min(1).max(99_999_999).default(900_001),
    /**
     * The deployed tickets' categories as a JSON array (ADR 0020): the stack computes it at synth
     * from the ticket folder, the local stack from the served folder. Each is sanitized and the
     * set bounded again here (`ticketCategorySet`); unset or `[]`: none known, a published ticket
     * takes any safe category.
     */
    TICKET_CATEGORIES: z
      .string()
      .optional()
      .transform((json, context) => {
        if (json === undefined || json.trim() === '') return [];
        let parsed: unknown;
        try {
          parsed = JSON.parse(json);
        } catch {
          parsed = undefined;
        }
        if (!Array.isArray(parsed)) {
          context.addIssue({ code: 'custom', message: 'TICKET_CATEGORIES must be a JSON array' });
          return z.NEVER;
        }
        return ticketCategorySet(parsed);
      }),
    /** Cognito: members of this group may publish knowledge (the `cognito:groups` claim). */
    KNOWLEDGE_EDITOR_GROUP: z.string().min(1).default('knowledge-editors'),
    /**
     * Local mode only: dev users (comma-separated) who may publish; empty: every dev user, so a
     * developer can try the whole flow on built-in defaults.
     */
    KNOWLEDGE_EDITORS: z
      .string()
      .default('')
      .transform((list) =>
        list
          .split(',')
          .map((user) => user.trim())
          .filter(Boolean),
      ),
    /**
     * Domains (comma-separated; subdomains included) links in answers may point to; links
     * elsewhere are removed from mail drafts and to-dos and shown unverified in the advice
     * (`functions/contract/links.ts`). The stack sets it from `allowedLinkDomains`; unset: the
     * vendor support sites of `DEFAULT_VENDOR_LINK_DOMAINS` only.
     */
    ALLOWED_LINK_DOMAINS: z
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
    /**
     * Knowledge capture's personal-data scrub settings as JSON — `{"patterns":[…],
     * "dictionary":[…],"keep":[…]}` (`functions/knowledge/personal-data-scrub.ts`, ADR 0019) —
     * the same file `npm run import` reads. Unset: the built-in detectors only.
     */
    PERSONAL_DATA_SETTINGS: z
      .string()
      .optional()
      .transform((json, context): ScrubSettings => {
        if (json === undefined || json.trim() === '') return {};
        try {
          return parseScrubSettings(JSON.parse(json));
        } catch (error) {
          context.addIssue({ code: 'custom', message: (error as Error).message });
          return z.NEVER;
        }
      }),
    /** Local S3 and Bedrock Agent (control plane) endpoints; unset in AWS. */
    S3_ENDPOINT: optionalUrl,
    BEDROCK_AGENT_ENDPOINT: optionalUrl,
  })
  .superRefine((config, context) => {
    if (
      config.AUTH_MODE === 'cognito' &&
      (!config.COGNITO_USER_POOL_ID || !config.COGNITO_CLIENT_ID)
    ) {
      context.addIssue({
        code: 'custom',
        message: 'AUTH_MODE=cognito needs COGNITO_USER_POOL_ID and COGNITO_CLIENT_ID',
      });
    }
    if ((config.GUARDRAIL_IDENTIFIER === undefined) !== (config.GUARDRAIL_VERSION === undefined)) {
      context.addIssue({
        code: 'custom',
        message: 'GUARDRAIL_IDENTIFIER and GUARDRAIL_VERSION go together: set both or neither',
      });
    }
    const searchProblem =
      config.SEARCH_TYPE && searchTypeProblem(config.SEARCH_TYPE, config.VECTOR_STORE);
    if (searchProblem) {
      context.addIssue({ code: 'custom', path: ['SEARCH_TYPE'], message: searchProblem });
    }
    if (config.KNOWLEDGE_BUCKET && !config.KNOWLEDGE_DATA_SOURCE_ID) {
      context.addIssue({
        code: 'custom',
        message:
          'KNOWLEDGE_BUCKET needs KNOWLEDGE_DATA_SOURCE_ID (the sync to start after a publish)',
      });
    }
  });

export type FunctionConfig = z.infer<typeof functionConfigSchema>;

export function readFunctionConfig(
  environment: Record<string, string | undefined>,
): FunctionConfig {
  const parsed = functionConfigSchema.safeParse(environment);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.join('.') || 'config'}: ${issue.message}`,
  );
  throw new Error(`Invalid function configuration — ${problems.join('; ')}`);
}

/**
 * The guardrail the model adapter applies, or `undefined` for none.
 *
 * @example
 * guardrailOf(readFunctionConfig(process.env)); // { identifier: 'gr1234', version: '1' }
 */
export function guardrailOf(
  config: FunctionConfig,
): { identifier: string; version: string } | undefined {
  const { GUARDRAIL_IDENTIFIER: identifier, GUARDRAIL_VERSION: version } = config;
  return identifier !== undefined && version !== undefined ? { identifier, version } : undefined;
}
