import { defaultChatConfig } from '../chat/ports.js';

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
}

export const API_TIMINGS: ApiTimings = {
  heartbeatMs: 10_000,
  stopPollMs: defaultChatConfig.stopPollMs,
  generationLeaseMs: defaultChatConfig.generationLeaseMs,
};
