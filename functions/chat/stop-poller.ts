export type StopReason = 'requested' | 'timeout';

export interface StopPollerOptions {
  /** Asks the store whether staff pressed stop. Failures are ignored (the next poll retries). */
  readonly isStopRequested: () => Promise<boolean>;
  readonly remainingTimeMs: () => number;
  readonly reserveMs: number;
  readonly intervalMs: number;
  readonly onStop: (reason: StopReason) => void;
}

/**
 * Polls the stop flag on a timer rather than per fragment, so a stop lands even while the model
 * is silent, and the store sees one read per interval however fast fragments arrive. Lambda
 * cannot see a client disconnect, so this flag and the time budget are the only ways out.
 */
export function startStopPoller(options: StopPollerOptions): { stop(): void } {
  let stopped = false;
  let inFlight = false;
  const fire = (reason: StopReason) => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    options.onStop(reason);
  };
  const timer = setInterval(() => {
    if (options.remainingTimeMs() < options.reserveMs) return fire('timeout');
    if (inFlight) return;
    inFlight = true;
    options
      .isStopRequested()
      .then((requested) => {
        if (requested) fire('requested');
      })
      .catch(() => undefined)
      .finally(() => {
        inFlight = false;
      });
  }, options.intervalMs);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
