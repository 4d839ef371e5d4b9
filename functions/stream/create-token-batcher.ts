/** Options of {@link createTokenBatcher}. */
export interface TokenBatchOptions {
  /**
   * Send as soon as this many UTF-16 units are pending. Each SSE event costs ~35 bytes of
   * framing, so 80 keeps the wire at ≤ 1.5 bytes per advice byte even for ASCII text.
   * @default 80
   */
  readonly minChars?: number;
  /**
   * Send what is pending at the latest this long after it arrived, so text never waits for more.
   * @default 50
   */
  readonly maxDelayMs?: number;
}

/** Collects advice deltas into fewer, larger `token` events. */
export interface TokenBatcher {
  add(content: string): void;
  /** Sends what is pending now (before any other event, to keep the order). */
  flush(): void;
  /** Flushes and stops the timer. */
  close(): void;
}

/**
 * Batches streamed text by size and by time: the per-event framing dominates the wire when
 * upstream fragments are a few characters each, while a 50 ms delay is not visible to a reader.
 *
 * @example
 * const batcher = createTokenBatcher({ send: (content) => sse.send({ event: 'token', data: { content } }) });
 */
export function createTokenBatcher(
  options: TokenBatchOptions & { readonly send: (content: string) => void },
): TokenBatcher {
  const minChars = options.minChars ?? 80;
  const maxDelayMs = options.maxDelayMs ?? 50;
  let pending = '';
  let timer: ReturnType<typeof setTimeout> | undefined;

  function flush(): void {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (pending === '') return;
    const content = pending;
    pending = '';
    options.send(content);
  }

  return {
    add(content) {
      if (content === '') return;
      pending += content;
      if (pending.length >= minChars) flush();
      else if (timer === undefined) {
        timer = setTimeout(flush, maxDelayMs);
        (timer as { unref?: () => void }).unref?.();
      }
    },
    flush,
    close: flush,
  };
}
