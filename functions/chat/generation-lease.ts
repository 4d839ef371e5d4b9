import type { Log } from './log.js';
import type {
  ChatConfig,
  ConversationStore,
  GenerationClaim,
  GenerationRenewal,
  Owner,
} from './ports.js';

/**
 * The generation lease's heartbeat: while a request generates an answer it moves its claim (and
 * the conversation's `answering` mark) on every third of the lease, so a live holder keeps it
 * however long the answer takes, and a holder that crashed stops renewing and loses it about one
 * lease later — a retry then takes over instead of waiting for the function's whole timeout.
 */

export interface GenerationLeaseOptions {
  readonly store: Pick<ConversationStore, 'renewGeneration'>;
  readonly owner: Owner;
  /** What is renewed; `until` is computed per renewal. */
  readonly lease: Omit<GenerationRenewal, 'until'>;
  /** Until when the claim being kept already runs (as taken by the commit or the takeover). */
  readonly claimedUntil: Date;
  readonly leaseMs: number;
  /** Never renew past the function's end: a lease must not outlive its holder. */
  readonly remainingTimeMs: () => number;
  readonly now: () => Date;
  /** Where a failed renewal is reported. */
  readonly log: Log;
}

/**
 * Starts renewing; `stop()` ends it (after the answer was recorded, before the claim is
 * released) and waits for a renewal in flight, so none lands after the caller moved on. A failed
 * renewal is logged and retried on the next beat: two of three may fail before the lease lapses.
 */
export function keepGenerationLease(options: GenerationLeaseOptions): { stop(): Promise<void> } {
  let inFlight: Promise<unknown> = Promise.resolve();
  let renewing = false;
  const renew = () => {
    if (renewing) return;
    renewing = true;
    const leaseMs = Math.min(options.leaseMs, Math.max(0, options.remainingTimeMs()));
    inFlight = options.store
      .renewGeneration(options.owner, {
        ...options.lease,
        until: new Date(options.now().getTime() + leaseMs),
      })
      .catch((error: unknown) =>
        options.log.error('could not renew the generation lease', { error }),
      )
      .finally(() => {
        renewing = false;
      });
  };
  // The first beat comes a third of a lease after the claim was dated, like every later one: a
  // slow commit (a loaded store, conflicting copies) is not allowed to eat into the margin, and a
  // short answer needs no write of its own — the commit's lease covers it.
  const beatMs = Math.max(1, Math.floor(options.leaseMs / 3));
  const firstBeatMs = Math.max(
    0,
    options.claimedUntil.getTime() - options.now().getTime() - (options.leaseMs - beatMs),
  );
  let timer: ReturnType<typeof setInterval> | undefined;
  const first = setTimeout(() => {
    renew();
    timer = setInterval(renew, beatMs);
  }, firstBeatMs);
  return {
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await inFlight;
    },
  };
}

/**
 * A new generation lease from `now`: one lease period (`generationLeaseMs`), never beyond the
 * function's remaining time.
 */
export function leaseFrom(
  now: Date,
  config: Pick<ChatConfig, 'generationLeaseMs'>,
  remainingTimeMs?: () => number,
  holder: string = crypto.randomUUID(),
): GenerationClaim {
  const leaseMs = Math.min(
    config.generationLeaseMs,
    remainingTimeMs?.() ?? Number.POSITIVE_INFINITY,
  );
  return { holder, until: new Date(now.getTime() + Math.max(0, leaseMs)) };
}
