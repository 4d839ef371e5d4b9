import type { Log } from '../chat/log.js';
import type { ModelCallContext } from '../model-call/open-model-call.js';
import type { StreamPaddingOptions } from '../sse/stream-padding.js';

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
