import { describe, expect, it } from 'vitest';
import { PROMPT_CACHE_SUPPORT } from '../../functions/adapters/bedrock/prompt-cache-support.js';
import {
  costAt,
  estimateCostUsd,
  estimateInputCostUsd,
  priceOf,
} from '../../functions/observability/model-prices.js';

const SONNET = 'global.anthropic.claude-sonnet-4-5-20250929-v1:0';

describe('estimateCostUsd', () => {
  it('prices input and output per million tokens, through an inference profile', () => {
    expect(estimateCostUsd(SONNET, { inputTokens: 1_000_000, outputTokens: 1_000_000 })).toBe(18);
  });

  it('prices cache writes at 1.25× and cache reads at 0.1× the input price for Claude', () => {
    expect(priceOf(SONNET)).toEqual({
      inputPerMillion: 3,
      outputPerMillion: 15,
      cacheWritePerMillion: 3.75,
      cacheReadPerMillion: expect.closeTo(0.3, 10),
    });
    const cost = estimateCostUsd(SONNET, {
      inputTokens: 200,
      outputTokens: 800,
      cacheReadInputTokens: 3000,
      cacheWriteInputTokens: 1000,
    });
    expect(cost).toBeCloseTo((200 * 3 + 800 * 15 + 3000 * 0.3 + 1000 * 3.75) / 1e6, 12);
    expect(
      estimateInputCostUsd(SONNET, { inputTokens: 200, cacheReadInputTokens: 3000 }),
    ).toBeCloseTo((200 * 3 + 3000 * 0.3) / 1e6, 12);
  });

  it('reads turns stored before caching (no cache counts) as before', () => {
    expect(estimateCostUsd(SONNET, { inputTokens: 1000, outputTokens: 0 })).toBeCloseTo(0.003, 12);
  });

  it('gives no cost rather than a wrong one: unknown model, unknown tokens, cache tokens without cache prices', () => {
    expect(
      estimateCostUsd('meta.llama3-70b-instruct-v1:0', { inputTokens: 1, outputTokens: 1 }),
    ).toBe(undefined);
    expect(estimateCostUsd(SONNET, undefined)).toBeUndefined();
    const noCachePrices = { inputPerMillion: 1, outputPerMillion: 2 };
    expect(
      costAt(noCachePrices, { inputTokens: 10, outputTokens: 0, cacheReadInputTokens: 5 }),
    ).toBe(undefined);
    expect(
      costAt(noCachePrices, { inputTokens: 10, outputTokens: 0, cacheWriteInputTokens: 5 }),
    ).toBe(undefined);
    expect(
      costAt(noCachePrices, { inputTokens: 1e6, outputTokens: 0, cacheReadInputTokens: 0 }),
    ).toBe(1);
    // Every model that can cache (prompt-cache-support.ts) has cache prices.
    for (const modelId of Object.keys(PROMPT_CACHE_SUPPORT)) {
      expect(priceOf(modelId), modelId).toMatchObject({
        cacheReadPerMillion: expect.any(Number),
        cacheWritePerMillion: expect.any(Number),
      });
    }
  });
});
