/**
 * Padding that pushes small writes through a front end that holds them back.
 *
 * Open runtime-client issues (aws-lambda-nodejs-runtime-interface-client #94, #102) report that
 * small writes to a streaming Function URL are held until ~16–100 KB accumulate, or until the
 * next write arrives. Locally every write leaves at once (AWS_NOTES "The Node.js runtime
 * interface client, measured"), so whether a deployment needs padding is decided by the
 * acceptance suite's measurements (`npm run test:integ`: token arrival spread, heartbeat
 * arrival); this module only makes it a setting. A padding is an SSE comment line of spaces,
 * which every reader ignores, written in the same chunk as the write it follows.
 *
 * Modes:
 * - `off` — nothing is added: the stream is byte-identical to an unpadded one.
 * - `after-pause` — the first write after a pause of `pauseMs` (the stream's first write
 *   included, e.g. the first token after retrieval and the model's time to first token) and
 *   every heartbeat carry a padding: a stalled stream's next byte and the heartbeat that must
 *   reach CloudFront within its origin read timeout cannot be held back, while the writes of a
 *   flowing stream push each other out.
 * - `every-flush` — every write carries a padding: for a front end that holds everything below
 *   its threshold. Costs `bytes` per write (docs/deploy.md has the figures per answer).
 */

export const STREAM_PADDING_MODES = ['off', 'after-pause', 'every-flush'] as const;
export type StreamPaddingMode = (typeof STREAM_PADDING_MODES)[number];

/** 16 KiB: the size at which the runtime-client reports saw writes flushed reliably. */
export const DEFAULT_PADDING_BYTES = 16 * 1024;
/** A write this long after the previous one follows a pause (tokens arrive every 10–100 ms). */
export const DEFAULT_PADDING_PAUSE_MS = 1000;
/** `:` and the blank line that ends the comment: the smallest padding there is. */
export const MIN_PADDING_BYTES = 3;

/** Options of {@link createStreamPadding}. */
export interface StreamPaddingOptions {
  readonly mode: StreamPaddingMode;
  /** Bytes of one padding comment, framing included. @default DEFAULT_PADDING_BYTES */
  readonly bytes?: number;
  /** @default DEFAULT_PADDING_PAUSE_MS */
  readonly pauseMs?: number;
  /** Milliseconds on a monotonic clock. @default performance.now */
  readonly now?: () => number;
}

/** What a write is: a heartbeat is padded in `after-pause` whatever came before it. */
export type WriteKind = 'event' | 'heartbeat';

export interface StreamPadding {
  /** The text to append to a write of this kind now ('' for none); records the write. */
  after(kind: WriteKind): string;
  /** Padding bytes added so far. */
  readonly bytesAdded: number;
}

/**
 * An SSE comment of exactly `bytes` bytes: `:`, spaces, and the blank line that ends it.
 *
 * @example
 * paddingComment(8); // ':     \n\n'
 */
export function paddingComment(bytes: number): string {
  if (!Number.isInteger(bytes) || bytes < MIN_PADDING_BYTES) {
    throw new RangeError(`A padding comment needs at least ${MIN_PADDING_BYTES} bytes`);
  }
  return `:${' '.repeat(bytes - MIN_PADDING_BYTES)}\n\n`;
}

/**
 * Decides, write by write, whether a padding follows it.
 *
 * @example
 * const padding = createStreamPadding({ mode: 'after-pause', bytes: 4096 });
 * controller.enqueue(encoder.encode(frame + padding.after('event')));
 */
export function createStreamPadding(options: StreamPaddingOptions): StreamPadding {
  const now = options.now ?? (() => performance.now());
  const pauseMs = options.pauseMs ?? DEFAULT_PADDING_PAUSE_MS;
  const comment =
    options.mode === 'off' ? '' : paddingComment(options.bytes ?? DEFAULT_PADDING_BYTES);
  let lastWriteAt = Number.NEGATIVE_INFINITY;
  let bytesAdded = 0;

  function padded(kind: WriteKind, at: number): boolean {
    switch (options.mode) {
      case 'off':
        return false;
      case 'every-flush':
        return true;
      case 'after-pause':
        return kind === 'heartbeat' || at - lastWriteAt >= pauseMs;
    }
  }

  return {
    after(kind) {
      const at = now();
      const text = padded(kind, at) ? comment : '';
      lastWriteAt = at;
      bytesAdded += text.length; // spaces and ASCII only: characters are bytes
      return text;
    },
    get bytesAdded() {
      return bytesAdded;
    },
  };
}
