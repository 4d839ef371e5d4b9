import type { Log } from '../chat/log.js';
import { defaultChatConfig } from '../chat/ports.js';
import type { ModelCallContext } from '../model-call/open-model-call.js';
import type { StreamPaddingOptions } from '../sse/stream-padding.js';
import { SURGE_CHECK_TIMEOUT_MS } from '../surges/surge-check.js';

/**
 * What every route group is given, built once per container by `createApi`: the logger, the
 * clock, the model call's budget and deadline settings, and how streams are sent. A route group
 * takes this and its own dependencies, so a setting shared by the streams is written once.
 */
export interface RouteContext extends ModelCallContext {
  /** The model call's settings, and the deployment's model (each stream's `meta` names it). */
  readonly config: ModelCallContext['config'] & { readonly modelId: string };
  /** Where failures are reported (the function's Powertools Logger). */
  readonly log: Log;
  readonly stream: StreamOptions;
}

/** How every SSE response of the function is sent. */
export interface StreamOptions {
  /** How often a comment keeps a silent stream open. */
  readonly heartbeatMs: number;
  /** Padding of the streams (`STREAM_PADDING`). @default no padding */
  readonly padding?: StreamPaddingOptions;
}

/**
 * How often the API's streams and generations check in: fixed in production (no deployment
 * varies them); the in-process harnesses and the test handler entry shorten them.
 */
export interface ApiTimings {
  /** A `: ping` comment after this much silence, so fronts and proxies keep the stream open. */
  readonly heartbeatMs: number;
  /** How often a generation asks whether its answer was stopped. */
  readonly stopPollMs: number;
  /** How long a generation claim lasts without renewal (ADR 0003). */
  readonly generationLeaseMs: number;
  /** How long a chat waits for its surge count or known issues before answering without (ADR 0033). */
  readonly surgeCheckTimeoutMs: number;
}

export const API_TIMINGS: ApiTimings = {
  heartbeatMs: 10_000,
  stopPollMs: defaultChatConfig.stopPollMs,
  generationLeaseMs: defaultChatConfig.generationLeaseMs,
  surgeCheckTimeoutMs: SURGE_CHECK_TIMEOUT_MS,
};
