/**
 * What the next `ConverseStream` call should do instead of running the offline responder.
 * Tests queue scripts with `enqueueScript`; they are consumed in FIFO order, one per request,
 * whatever the model id.
 */
export type ModelScript =
  /** HTTP 429 `ThrottlingException` before the stream starts (the SDK retries these). */
  | { readonly kind: 'throttle' }
  | {
      readonly kind: 'stream';
      /** Tool-input fragments, sent as `contentBlockDelta` events in order. */
      readonly fragments: readonly string[];
      /** @default 'tool_use'; `guardrail_intervened` emulates a Bedrock Guardrail blocking. */
      readonly stopReason?: 'tool_use' | 'max_tokens' | 'end_turn' | 'guardrail_intervened';
      /** Send a `modelStreamErrorException` after this many fragments instead of finishing. */
      readonly failAfter?: number;
      /** Milliseconds between fragments. @default the server's pacing */
      readonly delayMs?: number;
      /** Milliseconds before the first event. @default 0 */
      readonly initialDelayMs?: number;
      /**
       * Hold the stream after a number of fragments until a promise settles, so a test can look
       * at the mid-stream state for as long as it needs instead of racing a timed window. Several
       * holds let it see the answer grow step by step.
       */
      readonly pauseAfter?: readonly StreamPause[];
    };

/** Where a scripted stream waits, and for what (see `pauseAfter`). */
export interface StreamPause {
  readonly fragments: number;
  readonly until: PromiseLike<unknown>;
}
