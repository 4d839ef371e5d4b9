import { createHash } from 'node:crypto';
import {
  promptCacheSupportOf,
  withPromptCacheSupport,
} from '../../functions/adapters/bedrock/prompt-cache-support.js';
import { OFFLINE_MODEL_ID, OFFLINE_PROMPT_CACHE_SUPPORT } from './local-bedrock-defaults.js';
import type { ConverseWireRequest } from './recorded-requests.js';

/**
 * The local endpoint's model of Bedrock prompt caching, so the function's cache checkpoints,
 * the usage it parses and stores, its metrics and cost run end to end against the real SDK.
 * It is a model of documented behaviour, not Bedrock's implementation (ADR 0009):
 *
 * - The prompt is read in Claude's prefix order — tool definitions, system blocks, message
 *   content blocks — and a `cachePoint` block marks where a cached prefix ends.
 * - A checkpoint counts when the model supports caching (`PROMPT_CACHE_SUPPORT`) and its
 *   prefix adds at least the model's minimum tokens since the previous counted checkpoint
 *   ("the first checkpoint after 1,024 tokens, the second after 2,048"); others cache nothing.
 * - A read is the longest prefix cached earlier (same model, same blocks byte for byte, not
 *   expired) ending at a counted checkpoint or up to 20 blocks before one (Claude's lookback);
 *   reading refreshes its 5-minute TTL. Everything from there to the last counted checkpoint is
 *   a write, and each counted checkpoint's prefix is cached for 5 minutes.
 * - Tokens are the endpoint's own estimate (serialized characters ÷ `charsPerToken`), so
 *   `inputTokens` is the rest: total − read − write (Bedrock's `TokenUsage`).
 *
 * Compute time is not modelled: a cache read is not faster here, so time to first token can only
 * be compared on real Bedrock.
 */

export interface PromptCacheAccounting {
  /** Input tokens neither read from nor written to the cache. */
  readonly inputTokens: number;
  readonly cacheReadInputTokens: number;
  readonly cacheWriteInputTokens: number;
}

export interface LocalPromptCache {
  /**
   * Accounts one request against the cache (and updates it). Undefined when the request has no
   * cache point or the model does not support caching: usage then carries no cache counts.
   * `totalInputTokens` is the endpoint's estimate for the whole request without cache points.
   */
  account(
    modelId: string,
    body: ConverseWireRequest,
    totalInputTokens: number,
    charsPerToken: number,
  ): PromptCacheAccounting | undefined;
}

export interface LocalPromptCacheOptions {
  /** @default Date.now */
  readonly now?: () => number;
  /** @default 5 minutes, Bedrock's default cache TTL */
  readonly ttlMs?: number;
}

/** How far before a checkpoint Claude looks for an earlier cached prefix. */
const LOOKBACK_BLOCKS = 20;
const DEFAULT_TTL_MS = 5 * 60_000;
/** Bedrock's models, and the offline responder the function is told about by its settings. */
const LOCAL_PROMPT_CACHE_SUPPORT = withPromptCacheSupport({
  [OFFLINE_MODEL_ID]: OFFLINE_PROMPT_CACHE_SUPPORT,
});

export function createLocalPromptCache(options: LocalPromptCacheOptions = {}): LocalPromptCache {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
  /** Prefix hash → expiry (ms). */
  const entries = new Map<string, number>();

  return {
    account(modelId, body, totalInputTokens, charsPerToken) {
      const support = promptCacheSupportOf(modelId, LOCAL_PROMPT_CACHE_SUPPORT);
      const { blocks, checkpoints } = flattenPrompt(body);
      if (!support || checkpoints.length === 0) return undefined;
      const at = now();
      for (const [key, expiresAt] of entries) if (expiresAt <= at) entries.delete(key);

      const prefixTokens = (end: number) =>
        end === 0 ? 0 : Math.ceil(JSON.stringify(blocks.slice(0, end)).length / charsPerToken);
      const prefixKey = (end: number) =>
        createHash('sha256')
          .update(`${modelId}\n${JSON.stringify(blocks.slice(0, end))}`)
          .digest('hex');

      const counted: number[] = [];
      for (const end of checkpoints) {
        const previous = counted.at(-1) ?? 0;
        if (prefixTokens(end) - prefixTokens(previous) >= support.minimumTokens) counted.push(end);
      }
      const last = counted.at(-1);
      if (last === undefined) {
        return { inputTokens: totalInputTokens, cacheReadInputTokens: 0, cacheWriteInputTokens: 0 };
      }

      let readEnd = 0;
      for (const end of counted) {
        for (let boundary = end; boundary > Math.max(0, end - LOOKBACK_BLOCKS); boundary -= 1) {
          if (boundary > readEnd && entries.has(prefixKey(boundary))) {
            readEnd = boundary;
            break;
          }
        }
      }
      if (readEnd > 0) entries.set(prefixKey(readEnd), at + ttlMs);
      for (const end of counted) if (end > readEnd) entries.set(prefixKey(end), at + ttlMs);

      const read = prefixTokens(readEnd);
      const write = last > readEnd ? prefixTokens(last) - read : 0;
      return {
        inputTokens: Math.max(0, totalInputTokens - read - write),
        cacheReadInputTokens: read,
        cacheWriteInputTokens: write,
      };
    },
  };
}

/**
 * The prompt as a sequence of blocks in prefix order, and the positions (number of blocks
 * before it) of each `cachePoint`.
 */
function flattenPrompt(body: ConverseWireRequest): {
  blocks: unknown[];
  checkpoints: number[];
} {
  const blocks: unknown[] = [];
  const checkpoints: number[] = [];
  const take = (part: string, block: { readonly cachePoint?: unknown }) => {
    if (block.cachePoint !== undefined) checkpoints.push(blocks.length);
    else blocks.push([part, block]);
  };
  for (const tool of body.toolConfig?.tools ?? []) take('tool', tool);
  for (const block of body.system ?? []) take('system', block);
  for (const message of body.messages ?? []) {
    for (const block of message.content ?? []) take(message.role ?? 'user', block);
  }
  return { blocks, checkpoints };
}

/** The request as the model reads it: cache points are markers, not content. */
export function withoutCachePoints(body: ConverseWireRequest): ConverseWireRequest {
  const keep = <T extends { readonly cachePoint?: unknown }>(blocks: readonly T[] | undefined) =>
    blocks?.filter((block) => block.cachePoint === undefined);
  return {
    ...body,
    ...(body.system ? { system: keep(body.system) } : {}),
    ...(body.messages
      ? {
          messages: body.messages.map((message) => ({
            ...message,
            ...(message.content ? { content: keep(message.content) } : {}),
          })),
        }
      : {}),
    ...(body.toolConfig
      ? { toolConfig: { ...body.toolConfig, tools: keep(body.toolConfig.tools) } }
      : {}),
  };
}
