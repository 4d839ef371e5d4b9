import { z } from 'zod';
import {
  searchTypeOf,
  VECTOR_STORES,
  type VectorStore,
} from '../functions/adapters/bedrock/vector-store-search.js';
import { DEFAULT_VENDOR_LINK_DOMAINS } from '../functions/contract/links.js';
import {
  functionSettings,
  modelPriceSchema,
  promptCacheSupportSchema,
} from '../functions/settings/function-settings.js';
import { stackDefaultOf } from '../functions/settings/setting.js';
import { MIN_PADDING_BYTES, STREAM_PADDING_MODES } from '../functions/sse/stream-padding.js';
import { ticketSyncSourcesSchema } from '../functions/ticket-sync/sync-source-settings.js';

/**
 * Output dimension of each supported embedding model. The vector index is created with this
 * dimension, so adding a model here is the only change needed to switch models (changing the
 * model of a deployed stack replaces the index and the Knowledge Base, then re-ingests).
 */
export const embeddingModelDimensions = {
  // Multilingual (the tickets are Japanese); 1024 is its default and most accurate size.
  'amazon.titan-embed-text-v2:0': 1024,
  'amazon.titan-embed-text-v1': 1536,
  'cohere.embed-multilingual-v3': 1024,
  'cohere.embed-english-v3': 1024,
} as const;

export type EmbeddingModelId = keyof typeof embeddingModelDimensions;

/**
 * The distance metric of the S3 Vectors index for each embedding model (`cosine` or
 * `euclidean`). All of these are trained for cosine similarity (Titan v2 and Cohere v3 document
 * it; Bedrock's quick-create S3 Vectors index uses cosine), so cosine throughout; a model whose
 * vectors are compared by L2 would say `euclidean` here.
 */
export const embeddingModelDistances = {
  'amazon.titan-embed-text-v2:0': 'cosine',
  'amazon.titan-embed-text-v1': 'cosine',
  'cohere.embed-multilingual-v3': 'cosine',
  'cohere.embed-english-v3': 'cosine',
} as const satisfies Record<EmbeddingModelId, 'cosine' | 'euclidean'>;

/**
 * Where the Knowledge Base keeps its vectors (docs/deploy.md compares them, ADR 0014):
 *
 * - `opensearch-serverless`: HYBRID search (keyword + vector, with the Japanese analyzer); an
 *   idle floor of 0.5 + 0.5 OCU (≈ $175/month).
 * - `s3-vectors`: semantic search only; no idle floor.
 * - `other`: a reused Knowledge Base (`existingKnowledgeBaseId`) on any other store (Aurora,
 *   Pinecone, …): semantic search with the general filters.
 *
 * The list and the search type per store live with the retriever
 * (functions/adapters/bedrock/vector-store-search.ts).
 */
export { searchTypeOf, VECTOR_STORES, type VectorStore };

const embeddingModelIds = Object.keys(embeddingModelDimensions) as [
  EmbeddingModelId,
  ...EmbeddingModelId[],
];

/**
 * Claude Sonnet 4.5 through the global cross-Region inference profile: forced tool use works,
 * it handles Japanese well, and the global profile is ~10% cheaper than the geographic ones and
 * has the highest throughput quota. Use `us.`/`eu.`/`apac.`/`jp.` for data-residency needs.
 */
export const defaultModelId = 'global.anthropic.claude-sonnet-4-5-20250929-v1:0';

/**
 * Where inquiries may be processed and data kept (`dataResidency`): `none` lets the chat model run
 * wherever its inference profile routes; `jp` keeps everything in Japan (docs/deploy.md, "Data
 * residency"). Each entry names the regions the stack may be in, the chat model it uses when
 * `modelId` is unset, and the regions every Bedrock permission is scoped to.
 */
export const dataResidencyRules = {
  jp: {
    /** Tokyo and Osaka: the destination regions of every `jp.` inference profile. */
    regions: ['ap-northeast-1', 'ap-northeast-3'],
    /** The Japan cross-Region inference profile of the default model (Claude Sonnet 4.5). */
    defaultModelId: 'jp.anthropic.claude-sonnet-4-5-20250929-v1:0',
    /** The only inference-profile prefix whose requests stay in these regions. */
    inferenceProfilePrefix: 'jp',
  },
} as const;

export const DATA_RESIDENCIES = ['none', 'jp'] as const;
export type DataResidency = (typeof DATA_RESIDENCIES)[number];

/**
 * The Japanese regions that offer each embedding model in-region (Bedrock Knowledge Bases'
 * "Supported models for vector embeddings", December 2026: Tokyo offers all four; Osaka is not
 * listed for any of them). `dataResidency: jp` refuses an embedding model outside this table.
 */
export const embeddingModelJapanRegions = {
  'amazon.titan-embed-text-v2:0': ['ap-northeast-1'],
  'amazon.titan-embed-text-v1': ['ap-northeast-1'],
  'cohere.embed-multilingual-v3': ['ap-northeast-1'],
  'cohere.embed-english-v3': ['ap-northeast-1'],
} as const satisfies Record<string, readonly string[]>;

/**
 * The reranker models Bedrock Knowledge Base `Retrieve` can use, with the regions that offer each
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/rerank-supported.html, December 2026):
 * Amazon Rerank 1.0 is not offered in us-east-1; Cohere Rerank 3.5 is.
 */
export const rerankingModelRegions = {
  'amazon.rerank-v1:0': ['ap-northeast-1', 'ca-central-1', 'eu-central-1', 'us-west-2'],
  'cohere.rerank-v3-5:0': [
    'ap-northeast-1',
    'ca-central-1',
    'eu-central-1',
    'us-east-1',
    'us-west-2',
  ],
} as const satisfies Record<string, readonly string[]>;

export type RerankingModelId = keyof typeof rerankingModelRegions;

const rerankingModelIds = Object.keys(rerankingModelRegions) as [
  RerankingModelId,
  ...RerankingModelId[],
];

/** Values CloudWatch Logs accepts as a retention period, in days. */
const logRetentionValues = [
  1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288,
  3653,
] as const;

// `cdk -c key=value` passes strings; cdk.json passes JSON values. Accept both.
const booleanSetting = z.union([z.boolean(), z.stringbool()]);
const integerSetting = z.coerce.number().int();
const listSetting = z.preprocess(
  (value) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean)
      : value,
  z.array(z.string()),
);

// cdk.json gives an object; `-c modelPrices='{…}'` gives its JSON text.
const jsonSetting = <Schema extends z.ZodType>(schema: Schema) =>
  z.preprocess((value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }, schema);
const bedrockModelId = z.string().regex(/^[a-z0-9-]+(\.[\w.:-]+)+$/, 'must be a Bedrock model id');
const modelPricesSetting = jsonSetting(z.record(bedrockModelId, modelPriceSchema));
/** Prompt-cache support per model id (functions/adapters/bedrock/prompt-cache-support.ts). */
const promptCacheModelsSetting = jsonSetting(z.record(bedrockModelId, promptCacheSupportSchema));

/** An IPv4 or IPv6 CIDR range, as WAF IP sets take them. */
const cidrPattern = /^(\d{1,3}(\.\d{1,3}){3}\/\d{1,2}|[0-9a-f:]+:[0-9a-f:]*\/\d{1,3})$/i;

/** The value of `modelInvocationLogging` that turns it on: it names what it does. */
export const MODEL_INVOCATION_LOGGING_OPT_IN = 'replace-account-setting';

/** The function's settings (functions/settings/function-settings.ts): their defaults are the stack's. */
const { chat, insights, knowledgeBase, model, storage, stream, surges } = functionSettings;

const domainPattern = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const roleArnPattern = /^arn:aws[a-z-]*:iam::\d{12}:role\/[\w+=,.@/-]+$/;

/**
 * The deployment settings, read from `cdk.json` `context` (or `-c key=value`). Every key has a
 * default, so an empty context deploys a working stack.
 */
export const serviceDeskConfigSchema = z
  .object({
    /** CloudFormation stack name; also the prefix of named resources (collection, domain). */
    stackName: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9-]{0,63}$/)
      .default('ServiceDeskAssistant'),
    /** Target account; `CDK_DEFAULT_ACCOUNT` (the CLI's credentials) when absent. */
    account: z
      .string()
      .regex(/^\d{12}$/)
      .optional(),
    /** Target region. Bedrock, the model and OpenSearch Serverless must be available there. */
    region: z
      .string()
      .regex(/^[a-z]{2}(-gov)?-[a-z]+-\d$/)
      .default('us-east-1'),
    /**
     * Keep data and inference in one country ({@link dataResidencyRules}): `jp` requires
     * ap-northeast-1 or ap-northeast-3, uses the `jp.` inference profile, scopes every Bedrock
     * permission to the Japanese regions and refuses a model or feature not offered there.
     * `none`: the model runs where its profile routes (the default `global.` profile: anywhere).
     */
    dataResidency: z.enum(DATA_RESIDENCIES).default('none'),
    /**
     * Bedrock model id or (cross-Region) inference profile id used by ConverseStream. Unset:
     * {@link defaultModelId}, or the residency's own profile (`jp.…` with `dataResidency: jp`).
     */
    modelId: z
      .string()
      .regex(/^[a-z0-9-]+(\.[\w.:-]+)+$/)
      .default(defaultModelId),
    /**
     * Bedrock prompt caching (ADR 0009): `auto` sends cache checkpoints after the tool
     * definitions, the system prompt and an inquiry's history where the model supports it
     * (functions/adapters/bedrock/prompt-cache-support.ts); `off` never.
     */
    promptCaching: z.enum(['auto', 'off']).default(stackDefaultOf(model.promptCaching)),
    /**
     * Prompt-cache support that adds to or overrides the function's built-in table (ADR 0009),
     * keyed by model id: `{ "<model id>": { "minimumTokens": 1024, "cacheTools": true } }` — for a
     * model Bedrock gained prompt caching for after this release, without waiting for one.
     */
    promptCacheModels: promptCacheModelsSetting.default({}),
    embeddingModelId: z.enum(embeddingModelIds).default('amazon.titan-embed-text-v2:0'),
    /**
     * The Knowledge Base's vector store ({@link VECTOR_STORES}): what this stack provisions, or,
     * with `existingKnowledgeBaseId`, the store that Knowledge Base uses, which decides the
     * search type (HYBRID only on OpenSearch Serverless; others reject it).
     */
    vectorStore: z.enum(VECTOR_STORES).default(stackDefaultOf(knowledgeBase.vectorStore)),
    /**
     * Prices per million tokens (USD) that add to or override the built-in table
     * (functions/observability/model-prices.ts), keyed by foundation-model id, for the
     * estimated-cost metric: `{ "anthropic.claude-…": { "inputPerMillion": 3, "outputPerMillion": 15 } }`.
     */
    modelPrices: modelPricesSetting.default({}),
    /** Reuse this Knowledge Base instead of provisioning a vector store and Knowledge Base. */
    existingKnowledgeBaseId: z
      .string()
      .regex(/^[0-9A-Z]{10}$/)
      .optional(),
    /**
     * Knowledge capture with a reused Knowledge Base: the S3 bucket its data source reads.
     * Published tickets go to `tickets/published/` in it. Set with `existingDataSourceId`; with
     * neither, a reused Knowledge Base has no knowledge capture (publishing answers 501).
     */
    existingDocumentBucketName: z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be an S3 bucket name')
      .optional(),
    /** Knowledge capture with a reused Knowledge Base: the data source each publish syncs. */
    existingDataSourceId: z
      .string()
      .regex(/^[0-9A-Z]{10}$/)
      .optional(),
    /** Tickets requested from `Retrieve` per inquiry. */
    numberOfResults: integerSetting.min(1).max(100).default(stackDefaultOf(chat.numberOfResults)),
    /**
     * Expand each retrieval query with the bilingual IT glossary (other-language words for what
     * the inquiry mentions). Its default differs from the function's, for the reason its setting
     * gives (`functionSettings.chat.queryExpansion.deployed`).
     */
    queryExpansion: booleanSetting.default(stackDefaultOf(chat.queryExpansion)),
    /**
     * Rerank the retrieved chunks with this Bedrock reranker model ('' = off): `Retrieve` fetches
     * more candidates and the model reorders them down to `numberOfResults`. Only where the
     * region offers the model (`rerankingModelRegions`); costs per query (docs/deploy.md).
     */
    rerankingModelId: z.enum(['', ...rerankingModelIds]).default(''),
    /**
     * A Bedrock Guardrail on every model call (ADR 0013): '' none; `create` makes one with the
     * prompt-attack filter (input HIGH) over the retrieved tickets and the inquiry; or the id or
     * ARN of an existing guardrail (with `guardrailVersion`). Costs per text unit
     * (docs/deploy.md).
     */
    guardrail: z
      .string()
      .regex(
        /^$|^create$|^[a-z0-9]+$|^arn:aws(-[^:]+)?:bedrock:[a-z0-9-]{1,20}:\d{12}:guardrail\/[a-z0-9]+$/,
        "'' (none), 'create', or the id or ARN of an existing guardrail",
      )
      .default(''),
    /** The version of an existing `guardrail`: a number, or DRAFT (testing only). */
    guardrailVersion: z
      .string()
      .regex(/^$|^[1-9]\d{0,7}$|^DRAFT$/, 'a version number or DRAFT')
      .default(''),
    /**
     * A conversation, with all its turns, expires (DynamoDB TTL on its row; the retention sweeper
     * deletes the turns) this many days after its last activity.
     */
    retentionDays: integerSetting.min(1).max(3650).default(stackDefaultOf(storage.retentionDays)),
    /**
     * Keep knowledge-gap examples — the inquiry's text, scrubbed of personal data, owner as a
     * hash — for leads on the insights page (ADR 0022). Off: gaps are counts only.
     */
    insightsExamples: booleanSetting.default(stackDefaultOf(insights.examples)),
    /**
     * The best retrieval score under which an answered inquiry counts as a knowledge gap
     * (`weak_retrieval`, ADR 0022). Scores are the Knowledge Base's own: calibrate with
     * `npm run eval -- --from-feedback --target aws`, which prints how many solved inquiries fall
     * under it.
     */
    insightsGapScore: z.coerce.number().min(0).max(1).default(stackDefaultOf(insights.gapScore)),
    /**
     * Distinct staff members asking about one topic within `surgeWindowMinutes` that make a surge
     * (ADR 0033): their answers carry a notice, the insights page lists it, an alert goes out.
     */
    surgeMinStaff: integerSetting.min(2).max(1000).default(stackDefaultOf(surges.minStaff)),
    /** The window a surge is counted in, in minutes. */
    surgeWindowMinutes: integerSetting
      .min(6)
      .max(1440)
      .default(stackDefaultOf(surges.windowMinutes)),
    /** Announce a surge's start on the alarm topic (its e-mail subscription, `alarmEmail`). */
    surgeAlerts: booleanSetting.default(stackDefaultOf(surges.alerts)),
    /**
     * Input + output tokens one staff member may spend per UTC day: each model call reserves the
     * most it can cost on a DynamoDB counter and settles to what it used (ADR 0012); over it: 429
     * until midnight UTC. 0 = no budget.
     */
    dailyTokenBudget: integerSetting.min(0).default(stackDefaultOf(model.dailyTokenBudget)),
    /**
     * Padding comments that push small writes through the Function URL front end if it holds
     * them back (functions/sse/stream-padding.ts): `off`, `after-pause` or `every-flush`. Choose
     * from `npm run test:integ` (token arrival spread, heartbeat arrival); docs/deploy.md.
     */
    streamPadding: z.enum(STREAM_PADDING_MODES).default(stackDefaultOf(stream.padding)),
    /** Bytes of one padding comment (16 KiB: where the runtime-client reports saw a flush). */
    streamPaddingBytes: integerSetting
      .min(MIN_PADDING_BYTES)
      .max(1024 * 1024)
      .default(stackDefaultOf(stream.paddingBytes)),
    /**
     * Most API invocations that may run at once (Lambda reserved concurrency): a ceiling on
     * model spend and table load if a client loops. Each open answer holds one for 30–90 s, so
     * 20 serves ~100 active staff. It is taken from the account's unreserved pool, which must
     * keep its minimum (100 at the standard quota of 1,000): a new account whose quota is as low
     * as 10 cannot reserve any, and must use 0. 0 = no cap,
     * the default for that reason: WAF (`enableWaf`, on by default) is the default throttle, and
     * docs/deploy.md's security checklist asks for a value here once the quota allows it.
     */
    apiReservedConcurrency: integerSetting.min(0).max(10_000).default(0),
    /** CloudWatch Logs retention of the functions. */
    logRetentionDays: integerSetting
      .refine((days) => (logRetentionValues as readonly number[]).includes(days), {
        message: `must be one of ${logRetentionValues.join(', ')}`,
      })
      .default(30),
    /** What happens to tables, user pool, buckets and logs on `cdk destroy`. */
    removalPolicy: z.enum(['retain', 'destroy']).default('retain'),
    /** Lower-case e-mail domains staff accounts may use; empty allows any. */
    allowedEmailDomains: listSetting
      .pipe(z.array(z.string().toLowerCase().regex(domainPattern)))
      .default([]),
    /**
     * Domains (subdomains included) links in answers may point to: links elsewhere are removed
     * from mail drafts and to-dos, shown unverified in the advice, and warned about when a ticket
     * is published (functions/contract/links.ts). Unset: `allowedEmailDomains` (the organisation's
     * own) plus the vendor support sites of `DEFAULT_VENDOR_LINK_DOMAINS`; set, exactly this list.
     */
    allowedLinkDomains: listSetting
      .pipe(z.array(z.string().toLowerCase().regex(domainPattern)))
      .optional(),
    /**
     * A JSON file (path from the project folder) of personal-data scrub settings — the file
     * `npm run import -- --scrub-settings` reads: extra patterns, a dictionary of names, texts to
     * keep (ADR 0019). Knowledge capture scrubs drafts and publishes with it. Unset: the built-in
     * detectors only.
     */
    personalDataSettings: z.string().trim().min(1).optional(),
    /**
     * Attach a WAF web ACL to the distribution: a rate limit per IP, AWS managed rules (common,
     * known bad inputs, IP reputation) and, with `wafAllowedIpRanges`, a corporate allow list.
     * On by default: the throttle in front of the API function (≈ $10/month, docs/deploy.md).
     */
    enableWaf: booleanSetting.default(true),
    /** Use this CLOUDFRONT-scope web ACL (us-east-1) instead of creating one. Implies WAF on. */
    webAclArn: z
      .string()
      .regex(/^arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global\/webacl\/.+$/)
      .optional(),
    /** Requests per client IP per 5 minutes before WAF blocks it (a page load is ~5 requests). */
    wafRateLimit: integerSetting.min(10).max(2_000_000_000).default(1000),
    /**
     * IPv4/IPv6 CIDR ranges (the corporate network, VPN egress) WAF lets through; every other
     * address is blocked. Empty: any address (still rate-limited and filtered).
     */
    wafAllowedIpRanges: listSetting.pipe(z.array(z.string().regex(cidrPattern))).default([]),
    /**
     * The site's own host name (`assist.example.co.jp`), served with `certificateArn` and
     * TLSv1.2_2021 as the minimum protocol. Unset: the distribution's `*.cloudfront.net` name,
     * whose certificate lets CloudFront accept TLS 1.0 and 1.1 (docs/deploy.md).
     */
    domainName: z.string().toLowerCase().regex(domainPattern).optional(),
    /** The ACM certificate for `domainName`; CloudFront takes certificates from us-east-1 only. */
    certificateArn: z
      .string()
      .regex(
        /^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[0-9a-f-]+$/,
        'must be an ACM certificate ARN in us-east-1 (CloudFront reads certificates only there)',
      )
      .optional(),
    /**
     * CloudFront standard logs and S3 server access logs of the buckets, to a log bucket that
     * keeps them `accessLogRetentionDays`.
     */
    accessLogs: booleanSetting.default(true),
    /** Days the log bucket keeps access logs. */
    accessLogRetentionDays: integerSetting.min(1).max(3653).default(365),
    /**
     * Customer-managed KMS encryption of every table, bucket, vector store and log group: ''
     * (AWS-owned/AWS-managed keys), `create` (one key of this stack, rotated yearly) or the ARN of
     * an existing key in the stack's region (its key policy must allow what docs/deploy.md lists).
     */
    kmsKey: z
      .string()
      .regex(
        /^$|^create$|^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key\/[0-9a-f-]+$/,
        "'' (AWS-managed keys), 'create', or the ARN of a KMS key",
      )
      .default(''),
    /** OpenSearch Serverless standby replicas: doubles the OCU floor (≈$350/month). */
    standbyReplicas: booleanSetting.default(false),
    /**
     * Sign-in at the company's OpenID Connect issuer instead of the stack's Cognito pool (ADR
     * 0028): its issuer URL, exactly as its tokens' `iss` (Entra ID:
     * `https://login.microsoftonline.com/<tenant id>/v2.0`). Set: no user pool is created.
     */
    authIssuer: httpsUrl('authIssuer').optional(),
    /** The web app's client id (an SPA registration, no secret) at `authIssuer`. */
    authClientId: z.string().min(1).optional(),
    /**
     * The `aud` or `client_id` values the API accepts (Entra ID with
     * `accessTokenAcceptedVersion: 2`: the client id). Default: `authClientId`.
     */
    authAudience: listSetting.pipe(z.array(z.string().min(1))).default([]),
    /** What the web app asks `authIssuer` for: the OpenID scopes and the API's own scope. */
    authScope: z.string().min(1).default('openid profile email'),
    /** The claim with the caller's roles or groups (`roles`, `groups`, a dotted path). */
    authRoleClaim: z.string().min(1).default(stackDefaultOf(functionSettings.auth.roleClaim)),
    /** Role values of knowledge editors; default: the group name `knowledge-editors`. */
    authEditorRoles: listSetting.default([]),
    /** Role values of service-desk leads; default: the group name `service-desk-leads`. */
    authLeadRoles: listSetting.default([]),
    /**
     * `<role value>=<desk>` pairs (`HRDeskStaff=hr`): the desks whose tickets a role may retrieve,
     * besides `all`. With the stack's pool the role values are its groups (`cognito:groups`).
     */
    authDeskRoles: z
      .string()
      .default('')
      .refine(
        (pairs) => functionSettings.auth.deskRoles.schema.safeParse(pairs).success,
        'must be <role value>=<desk> pairs, comma-separated; a desk is 1-40 of A-Z a-z 0-9 . _ -',
      ),
    /**
     * Origins besides the issuer's that sign-in fetches from (the CSP's connect-src), when the
     * issuer's token or key endpoints are elsewhere.
     */
    authExtraOrigins: listSetting.pipe(z.array(httpsUrl('authExtraOrigins'))).default([]),
    /**
     * SAML through the stack's Cognito pool: the identity provider's metadata URL. Set, the
     * hosted UI goes straight to that provider (no Cognito password form).
     */
    samlMetadataUrl: httpsUrl('samlMetadataUrl').optional(),
    /** The SAML provider's name in the pool (and the hosted UI's `identity_provider`). */
    samlProviderName: z
      .string()
      .regex(/^[A-Za-z0-9-]{3,32}$/, 'must be 3-32 of A-Z a-z 0-9 -')
      .default('CompanySAML'),
    /** The SAML attribute carrying the user's groups (Entra ID's groups or app-role claim). */
    samlGroupsAttribute: z
      .string()
      .min(1)
      .default('http://schemas.microsoft.com/ws/2008/06/identity/claims/groups'),
    /** Cognito hosted-domain prefix; unique per region. Default: stack name + stack id suffix. */
    cognitoDomainPrefix: z
      .string()
      .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/)
      .refine((prefix) => !/aws|amazon|cognito/.test(prefix), {
        message: 'must not contain aws, amazon or cognito',
      })
      .optional(),
    /**
     * A deployment role that may manage the OpenSearch vector index, as collectionAdminRoleArns.
     * Not needed to deploy: the stack's own function creates the index (ADR 0014).
     */
    deploymentRoleArn: z.string().regex(roleArnPattern).optional(),
    /** Extra roles allowed to inspect the vector index (e.g. an operator role). */
    collectionAdminRoleArns: listSetting
      .pipe(z.array(z.string().regex(roleArnPattern)))
      .default([]),
    /** E-mail address subscribed to the alarm topic (it must confirm the subscription). */
    alarmEmail: z.email().optional(),
    /** Alarm when the p90 time to first token stays above this many milliseconds. */
    ttftAlarmMs: integerSetting.min(1000).max(300_000).default(15_000),
    /**
     * Bedrock model invocation logging (prompts and completions) to an S3 bucket of this stack,
     * encrypted with a customer key. The setting is per account and region, so turning it on
     * replaces whatever the account had: it takes `replace-account-setting` (after checking
     * `aws bedrock get-model-invocation-logging-configuration`), and `true` is refused. Deleting
     * the stack leaves the setting and the bucket in place (docs/deploy.md, "Audit").
     */
    modelInvocationLogging: z
      .union([booleanSetting, z.literal(MODEL_INVOCATION_LOGGING_OPT_IN)])
      .default(false),
    /**
     * AWS X-Ray active tracing of the API function: each request, with its Retrieve,
     * ConverseStream and DynamoDB calls, as a trace (Powertools Tracer). X-Ray bills per trace.
     */
    tracing: booleanSetting.default(false),
    /**
     * Ticket systems the stack pulls from on a schedule (ADR 0032, docs/deploy.md "Live ticket
     * sync"): a list of `{ system, url, secret, schedule?, reconcileSchedule?, filters?,
     * restrictedWhen?, comments?, maxLagMinutes?, id? }`
     * (functions/ticket-sync/sync-source-settings.ts). Each gets a scheduled function that may
     * read its one secret and write its one folder of the document bucket.
     */
    ticketSync: jsonSetting(ticketSyncSourcesSchema).default([]),
    /** Alarm when a synced source's knowledge is older than this (an entry's `maxLagMinutes` wins). */
    ticketSyncMaxLagMinutes: integerSetting.min(5).max(10_080).default(60),
    /** Function entry, relative to the repository root. */
    apiEntry: z.string().default('functions/api/handler.ts'),
    /** Retention sweeper entry, relative to the repository root. */
    retentionEntry: z.string().default('functions/retention/handler.ts'),
    /**
     * A web app built earlier (`npm run build` → `web/dist`), relative to the repository root,
     * deployed as it is. Unset: synthesis builds `web/` with Vite.
     */
    webDistPath: z.string().optional(),
    /** Ticket documents for the Knowledge Base, relative to the repository root. */
    ticketsPath: z.string().default('data/tickets'),
  })
  .strict()
  .superRefine((config, context) => {
    if (config.vectorStore === 'other' && !config.existingKnowledgeBaseId) {
      context.addIssue({
        code: 'custom',
        path: ['vectorStore'],
        message:
          "'other' describes a reused Knowledge Base (existingKnowledgeBaseId); this stack " +
          "provisions 'opensearch-serverless' or 's3-vectors'",
      });
    }
    if (config.vectorStore !== 'opensearch-serverless' && config.standbyReplicas) {
      context.addIssue({
        code: 'custom',
        path: ['standbyReplicas'],
        message:
          'standbyReplicas is an OpenSearch Serverless setting; vectorStore is ' +
          config.vectorStore,
      });
    }
    const captureSettings = [config.existingDocumentBucketName, config.existingDataSourceId];
    if (captureSettings.some(Boolean) && !config.existingKnowledgeBaseId) {
      context.addIssue({
        code: 'custom',
        path: ['existingKnowledgeBaseId'],
        message:
          'existingDocumentBucketName and existingDataSourceId belong to a reused Knowledge Base ' +
          '(existingKnowledgeBaseId); a provisioned one uses its own bucket and data source',
      });
    } else if (captureSettings.filter(Boolean).length === 1) {
      context.addIssue({
        code: 'custom',
        path: [
          config.existingDocumentBucketName ? 'existingDataSourceId' : 'existingDocumentBucketName',
        ],
        message:
          'knowledge capture with a reused Knowledge Base needs both existingDocumentBucketName ' +
          'and existingDataSourceId (the bucket published tickets go to and the data source ' +
          'that reads it); set both, or neither to leave knowledge capture off',
      });
    }
    const existingGuardrail = config.guardrail !== '' && config.guardrail !== 'create';
    if (existingGuardrail !== (config.guardrailVersion !== '')) {
      context.addIssue({
        code: 'custom',
        path: ['guardrailVersion'],
        message: existingGuardrail
          ? 'an existing guardrail needs its guardrailVersion (a number, or DRAFT)'
          : "guardrailVersion belongs to an existing guardrail; with 'create' the stack publishes its own version",
      });
    }
    if (config.modelInvocationLogging === true) {
      context.addIssue({
        code: 'custom',
        path: ['modelInvocationLogging'],
        message:
          `Bedrock invocation logging is one setting per account and region: turning it on replaces ` +
          `the one ${config.region} has. Check it (aws bedrock get-model-invocation-logging-configuration ` +
          `--region ${config.region}), then set modelInvocationLogging=${MODEL_INVOCATION_LOGGING_OPT_IN}`,
      });
    }
    if (Boolean(config.domainName) !== Boolean(config.certificateArn)) {
      context.addIssue({
        code: 'custom',
        path: [config.domainName ? 'certificateArn' : 'domainName'],
        message:
          'a custom domain needs both domainName and certificateArn (an ACM certificate in ' +
          'us-east-1 that covers the name); set both, or neither for the *.cloudfront.net name',
      });
    }
    if (config.wafAllowedIpRanges.length > 0 && !config.enableWaf && !config.webAclArn) {
      context.addIssue({
        code: 'custom',
        path: ['wafAllowedIpRanges'],
        message: 'wafAllowedIpRanges is enforced by the WAF web ACL; enableWaf is false',
      });
    }
    checkSignIn(config, context);
    const keyRegion = /^arn:[^:]+:kms:([^:]+):/.exec(config.kmsKey)?.[1];
    if (keyRegion && keyRegion !== config.region) {
      context.addIssue({
        code: 'custom',
        path: ['kmsKey'],
        message: `the key must be in the stack's region (${config.region}), not ${keyRegion}: KMS keys do not cross regions`,
      });
    }
    if (
      config.ticketSync.length > 0 &&
      config.existingKnowledgeBaseId &&
      !config.existingDocumentBucketName
    ) {
      context.addIssue({
        code: 'custom',
        path: ['ticketSync'],
        message:
          'a reused Knowledge Base syncs tickets into its bucket: set existingDocumentBucketName ' +
          'and existingDataSourceId, or leave ticketSync empty',
      });
    }
    if (config.dataResidency === 'jp') checkJapanResidency(config, context);
    if (config.rerankingModelId === '') return;
    const regions: readonly string[] = rerankingModelRegions[config.rerankingModelId];
    if (!regions.includes(config.region)) {
      context.addIssue({
        code: 'custom',
        path: ['rerankingModelId'],
        message: `${config.rerankingModelId} is not offered in ${config.region}; it is in ${regions.join(', ')}. Choose another rerankingModelId or region, or '' for no reranking`,
      });
    }
  });

export type ServiceDeskConfig = z.infer<typeof serviceDeskConfigSchema>;

/** An https URL without query or fragment, named in its message. */
function httpsUrl(name: string) {
  return z.string().refine((text) => {
    if (!URL.canParse(text)) return false;
    const url = new URL(text);
    return url.protocol === 'https:' && !url.search && !url.hash;
  }, `${name} must be an https URL without query or fragment`);
}

/** One way to sign in: the stack's pool (optionally federating SAML) or an external issuer. */
function checkSignIn(config: ServiceDeskConfig, context: z.RefinementCtx): void {
  const problem = (path: string, message: string) =>
    context.addIssue({ code: 'custom', path: [path], message });
  if (config.authIssuer) {
    if (!config.authClientId)
      problem('authClientId', "authIssuer needs authClientId (the web app's client id there)");
    if (config.samlMetadataUrl)
      problem(
        'samlMetadataUrl',
        "SAML is federated through the stack's Cognito pool; with authIssuer there is none. Set one of them",
      );
    if (config.cognitoDomainPrefix)
      problem('cognitoDomainPrefix', 'with authIssuer the stack creates no Cognito pool');
    if (config.allowedEmailDomains.length > 0)
      problem(
        'allowedEmailDomains',
        'allowedEmailDomains checks Cognito sign-ups; with authIssuer the issuer decides who signs in',
      );
  } else {
    for (const name of ['authClientId', 'authRoleClaim'] as const)
      if (name === 'authClientId' ? config.authClientId : config.authRoleClaim !== 'roles')
        problem(name, `${name} belongs to authIssuer (an external OpenID Connect issuer)`);
    if (config.authAudience.length > 0)
      problem(
        'authAudience',
        'authAudience belongs to authIssuer (an external OpenID Connect issuer)',
      );
  }
}

/**
 * `dataResidency: jp`: the region, the chat model's profile, the embedding model and a reused
 * Knowledge Base must all keep data in Japan; each problem names the setting to change.
 */
function checkJapanResidency(config: ServiceDeskConfig, context: z.RefinementCtx): void {
  const rules = dataResidencyRules.jp;
  const regions: readonly string[] = rules.regions;
  if (!regions.includes(config.region)) {
    context.addIssue({
      code: 'custom',
      path: ['dataResidency'],
      message: `dataResidency=jp keeps data and inference in Japan: region must be ${regions.join(' or ')}, not ${config.region}`,
    });
  }
  const prefix = config.modelId.split('.')[0];
  const knownProfilePrefixes = ['global', 'us', 'us-gov', 'eu', 'apac', 'au', 'ca'];
  if (knownProfilePrefixes.includes(prefix ?? '')) {
    context.addIssue({
      code: 'custom',
      path: ['modelId'],
      message: `dataResidency=jp: ${config.modelId} is a '${prefix}.' inference profile, which routes inquiries outside Japan; use a '${rules.inferenceProfilePrefix}.' profile (leave modelId unset for ${rules.defaultModelId}) or an in-region model id`,
    });
  }
  const embeddingRegions: readonly string[] = embeddingModelJapanRegions[config.embeddingModelId];
  // Outside Japan the region issue above says it all.
  const inJapan = regions.includes(config.region);
  if (inJapan && !config.existingKnowledgeBaseId && !embeddingRegions.includes(config.region)) {
    context.addIssue({
      code: 'custom',
      path: ['embeddingModelId'],
      message: `dataResidency=jp: ${config.embeddingModelId} is not offered in ${config.region}${embeddingRegions.length ? ` (in Japan: ${embeddingRegions.join(', ')})` : ''}; choose another embeddingModelId or region`,
    });
  }
  if (
    config.guardrail.startsWith('arn:') &&
    !regions.some((region) => config.guardrail.includes(`:${region}:`))
  ) {
    context.addIssue({
      code: 'custom',
      path: ['guardrail'],
      message: 'dataResidency=jp: the guardrail must be in a Japanese region',
    });
  }
}

/**
 * Settings whose default depends on another setting, filled in before validation: with
 * `dataResidency: jp` and no `modelId`, the Japan profile of the default model.
 */
function withDependentDefaults(context: Record<string, unknown>): Record<string, unknown> {
  if (context.dataResidency === 'jp' && context.modelId === undefined) {
    return { ...context, modelId: dataResidencyRules.jp.defaultModelId };
  }
  return context;
}

/**
 * Parses the CDK context into a typed config, with an error that names every bad key; a key
 * that is not a setting is named with the closest setting (a misspelled `vectorstore` would
 * otherwise deploy the default silently).
 *
 * @example
 * const config = parseServiceDeskConfig(settingsInContext(app.node.getAllContext()));
 */
export function parseServiceDeskConfig(context: Record<string, unknown>): ServiceDeskConfig {
  const parsed = serviceDeskConfigSchema.safeParse(withDependentDefaults(context));
  if (!parsed.success) {
    const problems = parsed.error.issues
      .flatMap((issue) =>
        issue.code === 'unrecognized_keys'
          ? issue.keys.map((key) =>
              issue.path.length === 0
                ? `  - ${key}: ${unknownSettingMessage(key)}`
                : // Inside a structured setting (a `ticketSync` entry): its own fields only.
                  `  - ${[...issue.path, key].join('.')}: not a field here (docs/deploy.md lists them)`,
            )
          : [`  - ${issue.path.join('.') || '(root)'}: ${issue.message}`],
      )
      .join('\n');
    throw new Error(`Invalid cdk.json context:\n${problems}`);
  }
  return parsed.data;
}

/** The context keys this app reads as settings. */
export const configKeys = Object.keys(serviceDeskConfigSchema.shape) as (keyof ServiceDeskConfig)[];

/**
 * The allow-list of answer links the function gets: `allowedLinkDomains` when set, otherwise the
 * organisation's own domains (`allowedEmailDomains`) and the default vendor support sites.
 *
 * @example
 * linkDomainsOf(parseServiceDeskConfig({ allowedEmailDomains: 'example.co.jp' }));
 * // ['example.co.jp', 'microsoft.com', …]
 */
export function linkDomainsOf(config: ServiceDeskConfig): string[] {
  return (
    config.allowedLinkDomains ?? [
      ...new Set([...config.allowedEmailDomains, ...DEFAULT_VENDOR_LINK_DOMAINS]),
    ]
  );
}

/**
 * Context keys that belong to CDK itself, not to this app: feature flags (`@aws-cdk/…`,
 * `@aws-cdk-containers/…`), the CLI's own (`aws:cdk:…`, `cdk-…`, `acknowledged-issue-numbers`,
 * `cli-telemetry`) and the lookup cache of cdk.context.json (`availability-zones:account=…`, any
 * key with a `:`). Everything else is a setting, and an unknown one is an error.
 */
export function isCdkContextKey(key: string): boolean {
  return (
    key.startsWith('@') ||
    key.includes(':') ||
    key.startsWith('cdk-') ||
    key === 'acknowledged-issue-numbers' ||
    key === 'cli-telemetry' ||
    key === 'notices'
  );
}

/**
 * The settings in a CDK context (`app.node.getAllContext()`): every key but CDK's own
 * ({@link isCdkContextKey}), without the `null`s cdk.json lists optional keys with (unset).
 */
export function settingsInContext(context: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(context).filter(
      ([key, value]) => !isCdkContextKey(key) && value !== undefined && value !== null,
    ),
  );
}

function unknownSettingMessage(key: string): string {
  const closest = closestSetting(key);
  return `not a setting of this app${closest ? `; did you mean ${closest}?` : ''} (docs/deploy.md lists them)`;
}

/** The setting nearest to `key` by edit distance (case-insensitive), if it is plausibly a typo. */
export function closestSetting(key: string): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of configKeys) {
    const distance = editDistance(key.toLowerCase(), name.toLowerCase());
    if (!best || distance < best.distance) best = { name, distance };
  }
  return best && best.distance <= Math.max(2, Math.floor(key.length / 3)) ? best.name : undefined;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** The vector dimension of an embedding model. */
export function embeddingDimension(modelId: EmbeddingModelId): number {
  return embeddingModelDimensions[modelId];
}
