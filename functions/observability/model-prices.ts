/**
 * On-demand prices per million tokens (USD, us-east-1, late 2026; check the Bedrock pricing page
 * for your region), for the estimated-cost metric and `npm run usage`. Keyed by the foundation
 * model id; a cross-Region inference profile (`global.`, `us.`, `jp.`, `apac.`, `eu.` …) maps to
 * its model. Geographic profiles cost about 10% more than the global one; the estimate ignores
 * that. A model missing here gets no cost rather than a wrong one — and says so: the function
 * logs one warning at cold start and marks each chat `cost_unknown` (metric `CostUnknown`); the
 * `modelPrices` deploy setting adds or overrides prices (`MODEL_PRICES`, {@link withPrices}).
 *
 * Prompt caching (ADR 0009): tokens written to the cache and tokens read from it have prices of
 * their own. A model without them gets no cost for an answer that reported cache tokens.
 */
export interface ModelPrice {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
  /** Input tokens written to the prompt cache (5-minute TTL). */
  readonly cacheWritePerMillion?: number;
  /** Input tokens read from the prompt cache. */
  readonly cacheReadPerMillion?: number;
}

/**
 * Anthropic's cache prices as multiples of the input price, as Bedrock bills them for Claude:
 * a 5-minute cache write costs 1.25× input, a cache read 0.1× (Anthropic, "Prompt caching —
 * Pricing", https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching#pricing; the
 * Bedrock pricing page, https://aws.amazon.com/bedrock/pricing/, lists the same per model).
 */
const CLAUDE_CACHE = { write: 1.25, read: 0.1 } as const;
/**
 * Amazon Nova: no premium for cache writes, cache reads 75% off input (Bedrock pricing page as
 * quoted by third parties, e.g. $0.20 vs $0.80 per million for Nova Pro; verify for your region).
 */
const NOVA_CACHE = { write: 1, read: 0.25 } as const;

const priced = (
  inputPerMillion: number,
  outputPerMillion: number,
  cache?: { readonly write: number; readonly read: number },
): ModelPrice => ({
  inputPerMillion,
  outputPerMillion,
  ...(cache
    ? {
        cacheWritePerMillion: inputPerMillion * cache.write,
        cacheReadPerMillion: inputPerMillion * cache.read,
      }
    : {}),
});

export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'anthropic.claude-sonnet-4-5-20250929-v1:0': priced(3, 15, CLAUDE_CACHE),
  'anthropic.claude-sonnet-4-20250514-v1:0': priced(3, 15, CLAUDE_CACHE),
  'anthropic.claude-haiku-4-5-20251001-v1:0': priced(1, 5, CLAUDE_CACHE),
  'anthropic.claude-opus-4-1-20250805-v1:0': priced(15, 75, CLAUDE_CACHE),
  'anthropic.claude-opus-4-5-20251101-v1:0': priced(5, 25, CLAUDE_CACHE),
  'anthropic.claude-3-7-sonnet-20250219-v1:0': priced(3, 15, CLAUDE_CACHE),
  'anthropic.claude-3-5-haiku-20241022-v1:0': priced(0.8, 4, CLAUDE_CACHE),
  'amazon.nova-pro-v1:0': priced(0.8, 3.2, NOVA_CACHE),
  'amazon.nova-lite-v1:0': priced(0.06, 0.24, NOVA_CACHE),
  'amazon.nova-micro-v1:0': priced(0.035, 0.14, NOVA_CACHE),
};

const PROFILE_PREFIX = /^(global|us|us-gov|eu|apac|jp|au|ca)\./;

/** The foundation model behind a model id or a cross-Region inference profile id. */
export function foundationModelOf(modelId: string): string {
  return modelId.replace(PROFILE_PREFIX, '');
}

/** A price table: model or foundation-model id → price. */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** {@link MODEL_PRICES} with `overrides` (the `modelPrices` deploy setting) added or replacing. */
export function withPrices(overrides: PriceTable): PriceTable {
  return { ...MODEL_PRICES, ...overrides };
}

/**
 * The price of a model: an entry for the exact id (a profile priced on its own) first, then its
 * foundation model's.
 */
export function priceOf(
  modelId: string,
  prices: PriceTable = MODEL_PRICES,
): ModelPrice | undefined {
  return prices[modelId] ?? prices[foundationModelOf(modelId)];
}

/** The tokens of one answer as the model reported them; cache counts only with prompt caching. */
export interface TokenCounts {
  /** Input tokens neither read from nor written to the cache. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadInputTokens?: number;
  readonly cacheWriteInputTokens?: number;
}

/**
 * USD for one answer, or undefined when the tokens or the price are unknown (also when the
 * answer reported cache tokens and the model has no cache prices).
 *
 * @example
 * estimateCostUsd('global.anthropic.claude-sonnet-4-5-20250929-v1:0', {
 *   inputTokens: 200, outputTokens: 800, cacheReadInputTokens: 3000,
 * }); // (200 × 3 + 800 × 15 + 3000 × 0.3) / 1e6
 */
export function estimateCostUsd(
  modelId: string,
  tokens: TokenCounts | undefined,
  prices: PriceTable = MODEL_PRICES,
): number | undefined {
  const price = priceOf(modelId, prices);
  return price && tokens ? costAt(price, tokens) : undefined;
}

/** USD for `tokens` at `price`; undefined when cache tokens have no price. */
export function costAt(price: ModelPrice, tokens: TokenCounts): number | undefined {
  const cacheRead = tokens.cacheReadInputTokens ?? 0;
  const cacheWrite = tokens.cacheWriteInputTokens ?? 0;
  if (cacheRead > 0 && price.cacheReadPerMillion === undefined) return undefined;
  if (cacheWrite > 0 && price.cacheWritePerMillion === undefined) return undefined;
  return (
    (tokens.inputTokens * price.inputPerMillion +
      tokens.outputTokens * price.outputPerMillion +
      cacheRead * (price.cacheReadPerMillion ?? 0) +
      cacheWrite * (price.cacheWritePerMillion ?? 0)) /
    1_000_000
  );
}

/** USD for the input side only (uncached, cache writes and cache reads): what caching changes. */
export function estimateInputCostUsd(
  modelId: string,
  tokens: Omit<TokenCounts, 'outputTokens'>,
): number | undefined {
  return estimateCostUsd(modelId, { ...tokens, outputTokens: 0 });
}
