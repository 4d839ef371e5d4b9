import type { PromptCachePolicy } from '../../chat/ports.js';
import { foundationModelOf } from '../../observability/model-prices.js';

/**
 * Which Bedrock models take Converse `cachePoint` checkpoints, and how long a cached prefix must
 * be (ADR 0009). From the Bedrock user guide, "Prompt caching for faster model inference",
 * https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html (supported models
 * table: minimum tokens per cache checkpoint, at most 4 checkpoints per request, and which
 * fields take them — Claude: system, messages and tools; Nova: system and messages only).
 * A checkpoint before the minimum is accepted but caches nothing. Keyed by foundation model id;
 * inference profiles (`global.`, `us.` …) map to their model. A model missing here is sent no
 * checkpoints, unless the `PROMPT_CACHE_MODELS` setting adds it ({@link withPromptCacheSupport};
 * the local stack adds its offline responder's id that way).
 */
export interface PromptCacheSupport {
  /** Tokens a cached prefix must hold, per checkpoint. */
  readonly minimumTokens: number;
  /** Whether a checkpoint may follow the tool definitions (`toolConfig.tools`). */
  readonly cacheTools: boolean;
}

/** Checkpoints a Converse request may carry. */
export const MAX_CACHE_CHECKPOINTS = 4;

export const PROMPT_CACHE_SUPPORT: Readonly<Record<string, PromptCacheSupport>> = {
  'anthropic.claude-sonnet-4-5-20250929-v1:0': { minimumTokens: 1024, cacheTools: true },
  'anthropic.claude-sonnet-4-20250514-v1:0': { minimumTokens: 1024, cacheTools: true },
  'anthropic.claude-opus-4-1-20250805-v1:0': { minimumTokens: 1024, cacheTools: true },
  'anthropic.claude-haiku-4-5-20251001-v1:0': { minimumTokens: 4096, cacheTools: true },
  'anthropic.claude-3-5-haiku-20241022-v1:0': { minimumTokens: 2048, cacheTools: true },
  'amazon.nova-pro-v1:0': { minimumTokens: 1000, cacheTools: false },
  'amazon.nova-lite-v1:0': { minimumTokens: 1000, cacheTools: false },
  'amazon.nova-micro-v1:0': { minimumTokens: 1000, cacheTools: false },
};

/** A prompt-cache table: model or foundation-model id → support. */
export type PromptCacheSupportTable = Readonly<Record<string, PromptCacheSupport>>;

/**
 * {@link PROMPT_CACHE_SUPPORT} with `overrides` (the `PROMPT_CACHE_MODELS` setting) added or
 * replacing: a model Bedrock gained since, or an emulator's id.
 */
export function withPromptCacheSupport(
  overrides: PromptCacheSupportTable,
): PromptCacheSupportTable {
  return { ...PROMPT_CACHE_SUPPORT, ...overrides };
}

/** `PROMPT_CACHING`: `auto` caches where the model supports it, `off` never. */
export type PromptCachingSetting = 'auto' | 'off';

/** A model's support: an entry for the exact id first, then its foundation model's. */
export function promptCacheSupportOf(
  modelId: string,
  table: PromptCacheSupportTable = PROMPT_CACHE_SUPPORT,
): PromptCacheSupport | undefined {
  return table[modelId] ?? table[foundationModelOf(modelId)];
}

/**
 * The core's caching policy for a model and the setting: undefined (no checkpoints, requests
 * exactly as without caching) when the setting is `off` or the model does not support it.
 */
export function promptCachePolicyFor(
  modelId: string,
  setting: PromptCachingSetting,
  table: PromptCacheSupportTable = PROMPT_CACHE_SUPPORT,
): PromptCachePolicy | undefined {
  if (setting === 'off') return undefined;
  const support = promptCacheSupportOf(modelId, table);
  return support ? { ...support } : undefined;
}
