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
 * checkpoints.
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
  // The local endpoint models Bedrock's cache accounting for the offline responder as for the
  // default model, Claude Sonnet 4.5 (local/bedrock/prompt-cache.ts).
  'offline.service-desk-responder': { minimumTokens: 1024, cacheTools: true },
};

/** `PROMPT_CACHING`: `auto` caches where the model supports it, `off` never. */
export type PromptCachingSetting = 'auto' | 'off';

export function promptCacheSupportOf(modelId: string): PromptCacheSupport | undefined {
  return PROMPT_CACHE_SUPPORT[foundationModelOf(modelId)];
}

/**
 * The core's caching policy for a model and the setting: undefined (no checkpoints, requests
 * exactly as without caching) when the setting is `off` or the model does not support it.
 */
export function promptCachePolicyFor(
  modelId: string,
  setting: PromptCachingSetting,
): PromptCachePolicy | undefined {
  if (setting === 'off') return undefined;
  const support = promptCacheSupportOf(modelId);
  return support ? { ...support } : undefined;
}
