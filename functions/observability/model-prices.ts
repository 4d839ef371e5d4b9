/**
 * On-demand prices per million tokens (USD, us-east-1, late 2026; check the Bedrock pricing page
 * for your region), for the estimated-cost metric and `npm run usage`. Keyed by the foundation
 * model id; a cross-Region inference profile (`global.`, `us.`, `jp.`, `apac.`, `eu.` …) maps to
 * its model. Geographic profiles cost about 10% more than the global one; the estimate ignores
 * that. A model missing here gets no cost rather than a wrong one.
 */
export interface ModelPrice {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
}

export const MODEL_PRICES: Readonly<Record<string, ModelPrice>> = {
  'anthropic.claude-sonnet-4-5-20250929-v1:0': { inputPerMillion: 3, outputPerMillion: 15 },
  'anthropic.claude-sonnet-4-20250514-v1:0': { inputPerMillion: 3, outputPerMillion: 15 },
  'anthropic.claude-haiku-4-5-20251001-v1:0': { inputPerMillion: 1, outputPerMillion: 5 },
  'anthropic.claude-opus-4-1-20250805-v1:0': { inputPerMillion: 15, outputPerMillion: 75 },
  'anthropic.claude-3-5-haiku-20241022-v1:0': { inputPerMillion: 0.8, outputPerMillion: 4 },
  'amazon.nova-pro-v1:0': { inputPerMillion: 0.8, outputPerMillion: 3.2 },
  'amazon.nova-lite-v1:0': { inputPerMillion: 0.06, outputPerMillion: 0.24 },
  'amazon.nova-micro-v1:0': { inputPerMillion: 0.035, outputPerMillion: 0.14 },
  // The local offline responder costs nothing.
  'offline.service-desk-responder': { inputPerMillion: 0, outputPerMillion: 0 },
};

const PROFILE_PREFIX = /^(global|us|us-gov|eu|apac|jp|au|ca)\./;

export function priceOf(modelId: string): ModelPrice | undefined {
  return MODEL_PRICES[modelId.replace(PROFILE_PREFIX, '')];
}

/** USD for one answer, or undefined when the tokens or the price are unknown. */
export function estimateCostUsd(
  modelId: string,
  inputTokens: number | undefined,
  outputTokens: number | undefined,
): number | undefined {
  const price = priceOf(modelId);
  if (!price || inputTokens === undefined || outputTokens === undefined) return undefined;
  return (inputTokens * price.inputPerMillion + outputTokens * price.outputPerMillion) / 1_000_000;
}
